-- Acquires the write side of a read/write lock, or re-enters it for the same owner. A writer that must wait records
-- its intent, which keeps new readers out until it gets the lock, gives up, or stops refreshing the intent.
-- KEYS[1]  the writer's hash, in the plain lock's layout (see acquire.lua); 'fence' = the writer's token
-- KEYS[2]  the readers (see read-acquire.lua)
-- KEYS[3]  the write intent (see read-acquire.lua)
-- KEYS[4]  the last fencing token of the lock
-- KEYS[5]  the restart grace marker (see restart-grace.lua)
-- The arguments (see ScriptArgument; the first six as in acquire.lua):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  LEASE_MILLIS
-- ARGV[4]  WATCHDOG
-- ARGV[5]  REENTRY
-- ARGV[6]  RESTART_GRACE_MILLIS
-- ARGV[7]  TOKEN_RETENTION_MILLIS  how long to keep the last fencing token (as in read-acquire.lua)
-- ARGV[8]  PLACE_LEASE_MILLIS      how long the intent lasts unless refreshed; 0 for a single attempt that records none
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone, or
-- -1 - (ms until it is worth trying again) when not (-1 - 2^40 - ms: refused by the restart grace).
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include reenter.lua (defines reenter)
--#include new-grant.lua (defines grantAnew)
--#include restart-grace.lua (defines restartGraceLeft)
--#include delayed-release.lua (defines heldFor)
local ownerState = redis.call('HMGET', KEYS[1], 'owner', 'until', 'fence', 'chain', 'layout')
if ownerState[5] then
  --#include layout.lua (defines otherLayout)
  return otherLayout(ownerState[5])
end
local owner = ownerState[1]
local watched = WATCHDOG == '1'
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
if owner == OWNER_TOKEN then
  return reenter(KEYS[1], OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, watched, now) or tonumber(ownerState[3])
end
if REENTRY == '1' then
  return 0
end
local heldMillis = heldFor(owner, ownerState[2]) -- a delayed release: held until its delay ends, by nobody
if heldMillis == 0 then
  owner = nil
end
local refused = refusedGrant and refusedGrant('SET', KEYS[3], 'PTTL', KEYS[1], 'ZREMRANGEBYSCORE', KEYS[2],
  'ZCARD', KEYS[2], 'ZSCORE', KEYS[2], 'ZRANGE', KEYS[2], 'SET', KEYS[4], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1],
  'DEL', KEYS[3])
if refused then
  return refused
end
local function recordIntent()
  local intent = redis.call('GET', KEYS[3])
  if tonumber(PLACE_LEASE_MILLIS) > 0 and (not intent or intent == OWNER_TOKEN) then
    redis.call('SET', KEYS[3], OWNER_TOKEN, 'PX', PLACE_LEASE_MILLIS)
  end
end
if owner then
  recordIntent()
  return -1 - (heldMillis or redis.call('PTTL', KEYS[1]))
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMillis) -- readers whose lease ran out
local readers = redis.call('ZCARD', KEYS[2])
if redis.call('ZSCORE', KEYS[2], OWNER_TOKEN) then
  readers = readers - 1 -- this owner's own read lock does not keep it out
end
if readers > 0 then
  recordIntent()
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return -1 - math.max(0, tonumber(first[2]) - nowMillis)
end
local graceLeft = restartGraceLeft(KEYS[5], tonumber(RESTART_GRACE_MILLIS))
if graceLeft then
  return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace
end
-- A new grant: its token follows the lock's last token, kept apart from the writer's hash (readers take tokens too).
local fence = grantAnew(KEYS[1], OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, watched, redis.call('GET', KEYS[4]), ownerState[4],
  now)
redis.call('SET', KEYS[4], fence, 'PX', TOKEN_RETENTION_MILLIS)
if redis.call('GET', KEYS[3]) == OWNER_TOKEN then
  redis.call('DEL', KEYS[3])
end
return tonumber(fence)
