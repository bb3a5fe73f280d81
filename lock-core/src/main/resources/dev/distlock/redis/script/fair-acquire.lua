-- Acquires a fair lock, or re-enters it for the same owner. The lock goes to the first waiter of a queue that Redis
-- orders by arrival; a waiter keeps its place only while it refreshes it, so one that died drops out.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the queue: a sorted set of waiting owner tokens, scored by arrival (1, 2, 3, ...)
-- KEYS[3]  the places: the same tokens, scored by when each place lapses unless refreshed (Redis ms)
-- KEYS[4]  the restart grace marker (see restart-grace.lua)
-- The arguments (see ScriptArgument; the first six as in acquire.lua):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  LEASE_MILLIS
-- ARGV[4]  WATCHDOG
-- ARGV[5]  REENTRY
-- ARGV[6]  RESTART_GRACE_MILLIS
-- ARGV[7]  PLACE_LEASE_MILLIS  how long a place lasts unless refreshed; 0 for a single attempt that joins no queue
-- ARGV[8]  CHANNEL             the release channel
-- ARGV[9]  PUBLISH_COMMAND     (see release.lua)
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone, or
-- -1 - (ms until it is worth trying again) when not (-1 - 2^40 - ms: refused by the restart grace).
-- A new grant names the waiter that is now first on the release channel: that waiter last heard of another holder
-- or another first waiter, so it re-checks now and learns this holder's lease, to re-check right at its expiry
-- (a lease that runs out publishes nothing).
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include reenter.lua (defines reenter)
--#include new-grant.lua (defines grantAnew)
--#include fair-queue.lua (defines dropLapsed)
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
local refused = refusedGrant and refusedGrant('ZREM', KEYS[2], 'ZREM', KEYS[3], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1],
  'PTTL', KEYS[1], 'ZRANGE', KEYS[2], 'ZSCORE', KEYS[2], 'ZADD', KEYS[2], 'ZADD', KEYS[3], 'ZSCORE', KEYS[3],
  'PEXPIRE', KEYS[2], 'PEXPIRE', KEYS[3])
if refused then
  return refused
end
dropLapsed(KEYS[2], KEYS[3], nowMillis)
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if not owner and (not first or first == OWNER_TOKEN) then
  local graceLeft = restartGraceLeft(KEYS[4], tonumber(RESTART_GRACE_MILLIS))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace
  end
  -- A new grant. It may name the next waiter: the channel is checked before the writes.
  refused = refusedGrant and refusedGrant(PUBLISH_COMMAND, CHANNEL)
  if refused then
    return refused
  end
  local fence = grantAnew(KEYS[1], OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, watched, ownerState[3], ownerState[4], now)
  redis.call('ZREM', KEYS[2], OWNER_TOKEN)
  redis.call('ZREM', KEYS[3], OWNER_TOKEN)
  local following = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if following then
    redis.call(PUBLISH_COMMAND, CHANNEL, following)
  end
  return tonumber(fence)
end
local placeLease = tonumber(PLACE_LEASE_MILLIS)
if placeLease > 0 then
  if not redis.call('ZSCORE', KEYS[2], OWNER_TOKEN) then
    local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[2], (tonumber(last[2]) or 0) + 1, OWNER_TOKEN)
  end
  redis.call('ZADD', KEYS[3], string.format('%d', nowMillis + placeLease), OWNER_TOKEN)
  extendLease(KEYS[2], placeLease)
  extendLease(KEYS[3], placeLease)
end
if owner then
  return -1 - (heldMillis or redis.call('PTTL', KEYS[1]))
end
-- Free, but another waiter comes first: try again when its place would lapse, or when its grant names this waiter.
return -1 - math.max(0, tonumber(redis.call('ZSCORE', KEYS[3], first) or nowMillis) - nowMillis)
