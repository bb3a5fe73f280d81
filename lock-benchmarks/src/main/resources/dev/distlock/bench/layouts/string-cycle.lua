-- hash-cycle.lua's work in a string ('<fence> <token> <hold id>', a free lock '<fence>'): GET and SET ... PX on each
-- side, the lease set with the value. A prototype of the cheapest layout that keeps an owner, a hold and the fencing
-- token for one hold, not a lock (no re-entry, fixed leases, waiting mark or retried-release evidence).
local value = redis.call('GET', KEYS[1])
local fence = 1000
if value then
  local last, owner = string.match(value, '^(%d+) ?(%x*)')
  if owner ~= '' then
    return redis.error_reply('held')
  end
  fence = tonumber(last)
end
fence = string.format('%d', fence + 1)
redis.call('SET', KEYS[1], fence .. ' ' .. ARGV[1] .. ' ' .. ARGV[2], 'PX', ARGV[3])
value = redis.call('GET', KEYS[1])
local owner, hold = string.match(value, '^%d+ (%x*) (%d*)$')
if owner ~= ARGV[1] or hold ~= ARGV[2] then
  return redis.error_reply('not released')
end
redis.call('SET', KEYS[1], fence, 'PX', ARGV[4])
return tonumber(fence)
