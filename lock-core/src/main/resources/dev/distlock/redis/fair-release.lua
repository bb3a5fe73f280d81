-- Releases one hold of a fair lock; the owner's last hold frees it and wakes the first waiter, naming it.
-- KEYS[1]  the lock hash (see acquire.lua); KEYS[2] the queue and KEYS[3] the places (see fair-acquire.lua)
-- ARGV[1]  owner token; ARGV[2] hold id; ARGV[3] release channel
-- ARGV[4]  how long to keep the last fencing token once the lock is free, in milliseconds
-- ARGV[5]  0 to free the lock now; otherwise keep it held, unrenewed, for this many more milliseconds
-- ARGV[6]  the publish command (see release.lua)
-- Returns what release.lua returns.
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then
  if redis.call('HGET', KEYS[1], 'released') == ARGV[1] then
    return 0
  end
  if owner then
    return -1
  end
  return -2
end
if redis.call('HDEL', KEYS[1], ARGV[2]) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[1], 'holds', -1) > 0 then
  return 2
end
if tonumber(ARGV[5]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return 1
end
redis.call('HDEL', KEYS[1], 'owner', 'holds')
redis.call('HSET', KEYS[1], 'released', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowMillis)) do
  redis.call('ZREM', KEYS[2], gone)
  redis.call('ZREM', KEYS[3], gone)
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if first then
  redis.call(ARGV[6], ARGV[3], first)
end
return 1
