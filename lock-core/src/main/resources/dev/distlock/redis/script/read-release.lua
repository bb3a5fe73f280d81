-- Releases one hold of a read lock; the owner's last hold ends its reading, and the last reader wakes the waiters.
-- KEYS[1]  the readers (see read-acquire.lua)
-- KEYS[2]  this reader's hash (see read-acquire.lua); once released it keeps only 'released' for a while
-- ARGV[1]  owner token; ARGV[2] hold id; ARGV[3] release channel; ARGV[4] release message
-- ARGV[5]  how long a released reader's hash stays to recognise a retried call, in ms
-- ARGV[6]  0 to end the read now; otherwise keep it, unrenewed, for this many more ms
-- ARGV[7]  the publish command (see release.lua)
-- ARGV[8]  '1' when the watchdog renews this hold, '0' for a fixed lease
-- Returns 1 when the lock was freed by its last reader (or left to expire), 3 when this owner stopped reading but
-- other readers remain, 2 when other holds of the owner remain, 0 when this hold was released before (a retried
-- call), -2 when the reader's lease had run out.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('ZREMRANGEBYSCORE', KEYS[1], 'ZSCORE', KEYS[1], 'ZADD', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1], 'ZREM', KEYS[1], 'ZCARD', KEYS[1], 'HDEL', KEYS[2], 'HINCRBY', KEYS[2], 'HGET', KEYS[2],
  'HGETALL', KEYS[2], 'PEXPIREAT', KEYS[2], 'DEL', KEYS[2], 'HSET', KEYS[2])
if refused then
  return refused
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease)
-- A retried call: this owner token ended a read before ('released'), and this hold is not one of its open ones
-- (hold ids are never reused). A later read of the same token keeps the mark (see read-acquire.lua).
if redis.call('HEXISTS', KEYS[2], 'released') == 1 and redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then
  return 0
end
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMillis)
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return -2
end
if redis.call('HDEL', KEYS[2], ARGV[2]) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[2], 'holds', -1) > 0 then
  local leaseEnd = keepLongestLease(KEYS[2], ARGV[8] == '1') -- the reader keeps its longest open lease
  if leaseEnd > 0 then
    redis.call('ZADD', KEYS[1], string.format('%d', leaseEnd), ARGV[1])
  end
  return 2
end
local keepHeld = tonumber(ARGV[6])
refused = refusedGrant(ARGV[7], ARGV[3]) -- the last reader publishes: the channel is checked before the writes
if refused then
  return refused
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'released', 1)
redis.call('PEXPIRE', KEYS[2], math.max(tonumber(ARGV[5]), keepHeld))
if keepHeld > 0 then
  -- The reader stays counted until the delay ends; waiters re-check then.
  redis.call('ZADD', KEYS[1], string.format('%d', nowMillis + keepHeld), ARGV[1])
  if redis.call('PTTL', KEYS[1]) < keepHeld then
    redis.call('PEXPIRE', KEYS[1], keepHeld)
  end
  return 1
end
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZCARD', KEYS[1]) > 0 then
  return 3
end
redis.call(ARGV[7], ARGV[3], ARGV[4])
return 1
