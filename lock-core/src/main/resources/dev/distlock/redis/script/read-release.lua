-- Releases one hold of a read lock; the owner's last hold ends its reading, and the last reader wakes the waiters.
-- KEYS[1]  the readers (see read-acquire.lua)
-- KEYS[2]  this reader's hash (see read-acquire.lua); once released it keeps only 'released' for a while
-- The arguments (see ScriptArgument; the first eight as in release.lua):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  FENCING_TOKEN           the token of the reader's grant: its hash's 'fence' while that grant lasts
-- ARGV[4]  WATCHDOG
-- ARGV[5]  KEEP_HELD_MILLIS        0 to end the read now; otherwise keep it, unrenewed, for this many more ms
-- ARGV[6]  TOKEN_RETENTION_MILLIS  how long a released reader's hash stays to recognise a retried call
-- ARGV[7]  CHANNEL
-- ARGV[8]  PUBLISH_COMMAND
-- ARGV[9]  MESSAGE
-- Returns 1 when the lock was freed by its last reader (or left to expire), 3 when this owner stopped reading but
-- other readers remain, 2 when other holds of the owner remain, 0 when this hold was released before (a retried
-- call), -2 when the reader's lease had run out.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant and refusedGrant('ZREMRANGEBYSCORE', KEYS[1], 'ZSCORE', KEYS[1], 'ZADD', KEYS[1],
  'PTTL', KEYS[1], 'PEXPIRE', KEYS[1], 'ZREM', KEYS[1], 'ZCARD', KEYS[1], 'HDEL', KEYS[2], 'HINCRBY', KEYS[2],
  'HGET', KEYS[2], 'HGETALL', KEYS[2], 'PEXPIREAT', KEYS[2], 'PEXPIRE', KEYS[2], 'DEL', KEYS[2], 'HSET', KEYS[2])
if refused then
  return refused
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease, keepReleased)
--#include lease-end.lua (defines endsFrom)
--#include extend-lease.lua (defines extendLease)
-- A retried call: this hold is not one of the owner's open ones (hold ids are never reused, and only a release
-- removes one), and either this owner token ended a read before ('released'; a later read of the same token keeps the
-- mark, see read-acquire.lua), or the hash is still the one of this hold's grant ('fence'): an earlier try ended this
-- hold while others remained. That evidence outlives the reader's lease (see below), which the remaining holds may
-- let run out before the retry comes: the retry must not read their lapse as the loss of the hold it released.
local mine = redis.call('HMGET', KEYS[2], 'released', 'fence', HOLD_ID)
if not mine[3] and (mine[1] or mine[2] == FENCING_TOKEN) then
  return 0
end
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMillis)
if not redis.call('ZSCORE', KEYS[1], OWNER_TOKEN) then
  return -2
end
if redis.call('HDEL', KEYS[2], HOLD_ID) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[2], 'holds', -1) > 0 then
  -- The reader keeps its longest open lease: its score in KEYS[1]. Its hash stays, even when that lease has ended
  -- already, as long as a retry of this release may come (see above).
  local leaseEnd = keepLongestLease(KEYS[2], 'watched', WATCHDOG == '1', false, true)
  if leaseEnd > 0 then
    redis.call('ZADD', KEYS[1], string.format('%d', leaseEnd), OWNER_TOKEN)
  end
  extendLease(KEYS[2], TOKEN_RETENTION_MILLIS)
  return 2
end
local keepHeld = tonumber(KEEP_HELD_MILLIS)
-- the last reader publishes: the channel is checked before the writes
refused = refusedGrant and refusedGrant(PUBLISH_COMMAND, CHANNEL)
if refused then
  return refused
end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[2], 'released', 1)
redis.call('PEXPIRE', KEYS[2], math.max(tonumber(TOKEN_RETENTION_MILLIS), keepHeld))
if keepHeld > 0 then
  -- The reader stays counted until the delay ends; waiters re-check then.
  redis.call('ZADD', KEYS[1], string.format('%d', endsFrom(now) + keepHeld), OWNER_TOKEN)
  extendLease(KEYS[1], keepHeld)
  return 1
end
redis.call('ZREM', KEYS[1], OWNER_TOKEN)
if redis.call('ZCARD', KEYS[1]) > 0 then
  return 3
end
redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE)
return 1
