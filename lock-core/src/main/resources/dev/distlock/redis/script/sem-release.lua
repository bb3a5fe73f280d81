-- Releases one hold of a semaphore's permits; the holder's last hold gives its permits back and wakes the waiters.
-- KEYS[1]  the leases and KEYS[2] the permits (see sem-count.lua)
-- KEYS[3]  this holder's hash (see sem-acquire.lua); once released it keeps only 'released' for a while
-- KEYS[4]  the queue of a fair semaphore (see sem-acquire.lua)
-- ARGV[1]  holder token; ARGV[2] hold id; ARGV[3] release channel; ARGV[4] release message
-- ARGV[5]  how long a released holder's hash stays to recognise a retried call, in ms
-- ARGV[6]  0 to give the permits back now; otherwise keep them, unrenewed, for this many more ms
-- ARGV[7]  the publish command (see release.lua)
-- ARGV[8]  '1' when the watchdog renews this hold, '0' for a fixed lease
-- Returns 1 when the permits were given back (or left to expire), 2 when other holds of the holder remain, 0 when
-- this hold was released before (a retried call), -2 when the holder's lease had run out.
-- The release publishes only when a waiting caller was refused since the last message, or a fair queue waits.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('ZADD', KEYS[1], 'ZREM', KEYS[1], 'PEXPIRE', KEYS[1], 'HSET', KEYS[2],
  'HDEL', KEYS[2], 'PEXPIRE', KEYS[2], 'DEL', KEYS[2], 'HDEL', KEYS[3], 'HINCRBY', KEYS[3], 'HGETALL', KEYS[3],
  'PEXPIREAT', KEYS[3], 'DEL', KEYS[3], 'HSET', KEYS[3])
if refused then
  return refused
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease)
--#include sem-count.lua (defines permitsInUse, keepUntil)
-- A retried call: this token was released before ('released'), and this hold is not one of its open ones.
if redis.call('HEXISTS', KEYS[3], 'released') == 1 and redis.call('HEXISTS', KEYS[3], ARGV[2]) == 0 then
  return 0
end
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local count = permitsInUse(KEYS[1], KEYS[2], nowMillis)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -2
end
if redis.call('HDEL', KEYS[3], ARGV[2]) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[3], 'holds', -1) > 0 then
  local leaseEnd = keepLongestLease(KEYS[3], ARGV[8] == '1') -- the holder keeps its longest open lease
  if leaseEnd > 0 then
    redis.call('ZADD', KEYS[1], string.format('%d', leaseEnd), ARGV[1])
  end
  return 2
end
local keepHeld = tonumber(ARGV[6])
local publish = keepHeld == 0 and (redis.call('HGET', KEYS[2], 'waiting') or redis.call('EXISTS', KEYS[4]) == 1)
refused = publish and refusedGrant(ARGV[7], ARGV[3]) -- a release that publishes checks the channel first
if refused then
  return refused
end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'released', 1)
redis.call('PEXPIRE', KEYS[3], math.max(tonumber(ARGV[5]), keepHeld))
if keepHeld > 0 then
  -- The permits stay counted until the delay ends; waiters re-check then (the earliest lease end).
  redis.call('ZADD', KEYS[1], string.format('%d', nowMillis + keepHeld), ARGV[1])
  keepUntil(KEYS[1], KEYS[2], keepHeld)
  return 1
end
local permits = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or 0)
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) == 0 then
  redis.call('DEL', KEYS[2]) -- the last holder: nothing is left to count
else
  redis.call('HDEL', KEYS[2], ARGV[1], 'waiting')
  redis.call('HSET', KEYS[2], 'count', math.max(0, count - permits)) -- 'count' kept the hash and its expiry
end
if publish then
  redis.call(ARGV[7], ARGV[3], ARGV[4])
end
return 1
