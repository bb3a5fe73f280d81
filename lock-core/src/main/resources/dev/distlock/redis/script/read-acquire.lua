-- Acquires the read side of a read/write lock, or re-enters it for the same owner. Readers share the lock; a writer
-- excludes them, and so does a waiting writer's intent, so that new readers cannot starve a writer.
-- KEYS[1]  the readers: a sorted set of reader owner tokens, scored by the end of each reader's lease (Redis ms)
-- KEYS[2]  this reader's hash: 'fence' = its fencing token, 'holds', 'watched' and hold fields as in acquire.lua
-- KEYS[3]  the writer's hash (see acquire.lua): 'owner' = the write holder's token
-- KEYS[4]  the write intent: the token of a waiting writer, expiring unless the writer refreshes it
-- KEYS[5]  the last fencing token of the lock
-- KEYS[6]  the restart grace marker (see restart-grace.lua)
-- The arguments (see ScriptArgument; the first six as in acquire.lua):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  LEASE_MILLIS
-- ARGV[4]  WATCHDOG
-- ARGV[5]  REENTRY
-- ARGV[6]  RESTART_GRACE_MILLIS
-- ARGV[7]  TOKEN_RETENTION_MILLIS  how long to keep the last fencing token
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's read hold gone, or
-- -1 - (ms until it is worth trying again) when not (-1 - 2^40 - ms: refused by the restart grace).
--#arguments
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant and refusedGrant('ZREMRANGEBYSCORE', KEYS[1], 'ZADD', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1], 'HSETNX', KEYS[2], 'HINCRBY', KEYS[2], 'DEL', KEYS[2], 'HSET', KEYS[2], 'HGET', KEYS[2],
  'PEXPIRE', KEYS[2], 'SET', KEYS[5])
if refused then
  return refused
end
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include extend-lease.lua (defines extendLease)
--#include delayed-release.lua (defines heldFor)
--#include lease-end.lua (defines endsFrom)
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local startMillis = endsFrom(now) -- the lease end written counts from here
local lease = tonumber(LEASE_MILLIS)
local leaseEnd = string.format('%d', startMillis + lease)
local watched = WATCHDOG == '1'
local holdLease = watched and 'w' or leaseEnd -- 'watched' and the hold fields as in acquire.lua
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', nowMillis) -- readers whose lease ran out
local readUntil = tonumber(redis.call('ZSCORE', KEYS[1], OWNER_TOKEN))
if readUntil and redis.call('HEXISTS', KEYS[2], 'holds') == 1 then
  addHold(KEYS[2], HOLD_ID, holdLease, watched and 'watched')
  if readUntil < startMillis + lease then -- a re-entry never shortens the lease
    redis.call('ZADD', KEYS[1], leaseEnd, OWNER_TOKEN)
  end
  extendLease(KEYS[2], lease)
else
  if REENTRY == '1' then
    return 0
  end
  local writerState = redis.call('HMGET', KEYS[3], 'owner', 'until', 'layout')
  if writerState[3] then
    --#include layout.lua (defines otherLayout)
    return otherLayout(writerState[3])
  end
  local writer = writerState[1]
  local writerHeld = heldFor(writer, writerState[2]) -- a writer's delayed release: held until its delay ends
  if writerHeld == 0 then
    writer = nil
  end
  if writer and writer ~= OWNER_TOKEN then
    return -1 - (writerHeld or redis.call('PTTL', KEYS[3]))
  end
  if not writer and redis.call('EXISTS', KEYS[4]) == 1 then -- the write holder itself ignores the intent
    return -1 - redis.call('PTTL', KEYS[4])
  end
  local graceLeft = restartGraceLeft(KEYS[6], tonumber(RESTART_GRACE_MILLIS))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace
  end
  -- A new grant: the token keeps increasing after the lock expired or was lost in a restart (see acquire.lua).
  local fence = math.max(tonumber(redis.call('GET', KEYS[5]) or 0) + 1, now[1] * 1000000 + now[2])
  redis.call('SET', KEYS[5], string.format('%d', fence), 'PX', TOKEN_RETENTION_MILLIS)
  -- The owner's earlier read may have ended with its reply lost: its 'released' mark stays, as long as it would have,
  -- so that the retry still recognises itself (see read-release.lua). The reader's lease is its score in KEYS[1].
  local markedFor = (redis.call('HEXISTS', KEYS[2], 'released') == 1) and redis.call('PTTL', KEYS[2]) or 0
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'fence', string.format('%d', fence), 'holds', 1, 'watched', watched and 1 or 0,
    HOLD_ID, holdLease)
  if markedFor ~= 0 then
    redis.call('HSET', KEYS[2], 'released', 1)
  end
  redis.call('PEXPIRE', KEYS[2], math.max(lease, markedFor))
  redis.call('ZADD', KEYS[1], leaseEnd, OWNER_TOKEN)
end
extendLease(KEYS[1], lease)
return tonumber(redis.call('HGET', KEYS[2], 'fence'))
