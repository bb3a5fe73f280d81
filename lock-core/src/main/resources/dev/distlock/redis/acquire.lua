-- Acquires an exclusive lock, or re-enters it for the same owner.
-- KEYS[1]  the lock hash: 'owner' = owner token, 'holds' = open holds, one field per open hold id,
--          'fence' = last fencing token, 'released' = token of the last owner to free it
-- ARGV[1]  owner token
-- ARGV[2]  hold id, one per acquisition, so that a retried call never counts twice
-- ARGV[3]  lease in milliseconds
-- Returns the fencing token (> 0) when granted, or -1 - (the holder's remaining lease in ms) when another owner holds it.
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner == ARGV[1] then
  if redis.call('HSETNX', KEYS[1], ARGV[2], 1) == 1 then
    redis.call('HINCRBY', KEYS[1], 'holds', 1)
  end
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
  end
  return tonumber(redis.call('HGET', KEYS[1], 'fence'))
end
if owner then
  return -1 - redis.call('PTTL', KEYS[1])
end
-- A new grant. The token is the Redis clock in microseconds, or one more than the last token if that is higher, so it
-- keeps increasing after the hash (and with it the last token) has expired or was lost in a restart.
local now = redis.call('TIME')
local fence = math.max(tonumber(redis.call('HGET', KEYS[1], 'fence') or 0) + 1, now[1] * 1000000 + now[2])
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holds', 1, ARGV[2], 1, 'fence', string.format('%d', fence))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return fence
