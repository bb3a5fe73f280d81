-- One lock cycle's Redis work in today's hash layout (acquire.lua's new grant after another owner's release, then
-- release.lua's last hold, nobody waiting; no ACL guard, as for the default user), in one script so that
-- redis-benchmark can repeat it: the common path only, to compare layouts (see layout-cost.sh).
-- KEYS[1] the lock hash; ARGV[1] owner token, ARGV[2] hold id, ARGV[3] lease ms, ARGV[4] token retention ms
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'chain', 'until')
if state[1] then
  return redis.error_reply('held')
end
local fence = string.format('%d', tonumber(state[2] or 1000) + 1)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holds', '1', ARGV[1], '1', ARGV[2], 'w', 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
-- the release
state = redis.call('HMGET', KEYS[1], 'owner', 'holds', ARGV[2], 'waiting')
if state[1] ~= ARGV[1] or not state[3] then
  return redis.error_reply('not released')
end
redis.call('HDEL', KEYS[1], ARGV[2], 'owner', 'holds', ARGV[1], 'waiting')
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return tonumber(fence)
