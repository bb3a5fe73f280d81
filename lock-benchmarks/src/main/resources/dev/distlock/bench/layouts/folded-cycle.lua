-- hash-cycle.lua with fewer fields: the first hold's id folded into 'owner' ('<token> <hold id>') and 'holds'
-- implied for one hold (a grant writes 3 fields, not 5; the release deletes 3). A prototype of the cut, not a lock.
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'chain', 'until')
if state[1] then
  return redis.error_reply('held')
end
local fence = string.format('%d', tonumber(state[2] or 1000) + 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1] .. ' ' .. ARGV[2], ARGV[1], '1', 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
state = redis.call('HMGET', KEYS[1], 'owner', 'holds', 'waiting')
if state[1] ~= ARGV[1] .. ' ' .. ARGV[2] then
  return redis.error_reply('not released')
end
redis.call('HDEL', KEYS[1], 'owner', ARGV[1], 'waiting')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return tonumber(fence)
