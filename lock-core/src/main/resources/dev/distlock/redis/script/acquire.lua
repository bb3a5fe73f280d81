-- Acquires an exclusive lock, or re-enters it for the same owner.
-- KEYS[1]  the lock hash: 'owner' = owner token, 'holds' = open holds, a field named by the owner token = open holds
--          the watchdog renews (renew.lua reads it alone), one field per open hold id (its lease end in Redis ms, or
--          'w' when the watchdog renews it),
--          'fence' = last fencing token, 'chain' = the first token of the run of grants since the hash last
--          vanished, each ended by its owner's release (see release.lua), 'released' = token of the last owner to
--          release with a delay (see delayed-release.lua)
-- KEYS[2]  the restart grace marker (see restart-grace.lua)
-- The arguments (names shared with the Java side, dev.distlock.redis.script.ScriptArgument; every grant script takes
-- the first six at these positions):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID               one per acquisition, so that a retried call never counts twice
-- ARGV[3]  LEASE_MILLIS
-- ARGV[4]  WATCHDOG              '1' when the watchdog renews this acquisition, '0' for a fixed lease
-- ARGV[5]  REENTRY               '1' for a re-entry: granted only while this owner still holds the lock, never anew
-- ARGV[6]  RESTART_GRACE_MILLIS  0 for none
-- ARGV[7]  WAITING               '1' when the caller waits if refused: a refusal then sets 'waiting', so that a
--                                process handing the lock on among its own waiters (handoff.lua) knows others wait
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone,
-- -1 - (the holder's remaining lease in ms) when another owner holds it, or -1 - 2^40 - (ms) when the restart grace
-- refuses a new grant.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include new-grant.lua (defines grantAnew)
-- (What only a re-entry, a delayed release or a fresh key's grant needs is included inside its branch, so that a lock
-- cycle's grant defines none of it.)
-- 'fence' and 'chain' are written together, by a run's first grant, and neither is ever deleted alone (only the
-- hash's expiry removes them): the one read below stands for both. Each field read costs Redis more than the
-- branch it saves, so a cycle's grant reads these two only, and 'layout' (see layout.lua); 'until' is read where a
-- delayed release needs it.
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'layout')
if state[3] then
  --#include layout.lua (defines otherLayout)
  return otherLayout(state[3])
end
local owner, lastFence = state[1], state[2]
local watched = WATCHDOG == '1'
if owner == OWNER_TOKEN then
  --#include reenter.lua (defines reenter)
  return reenter(KEYS[1], OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, watched, nil) or tonumber(lastFence)
end
if REENTRY == '1' then
  return 0
end
if owner == '(released)' then
  --#include delayed-release.lua (defines heldFor)
  local releasedFor = heldFor(owner, redis.call('HGET', KEYS[1], 'until'))
  if releasedFor > 0 then
    return -1 - releasedFor
  end
  owner = nil -- a delayed release whose delay has ended: free
end
if owner then
  local leaseLeft = redis.call('PTTL', KEYS[1])
  if WAITING == '1' then
    redis.call('HSET', KEYS[1], 'waiting', '1') -- the only write, and the last command: needs no guard
  end
  return -1 - leaseLeft
end
-- A hash that keeps a 'fence' (and so a 'chain') was granted since this Redis process's data began, by a grant the
-- restart grace let through (it writes its marker before any grant goes ahead, and a restart that keeps the data keeps
-- the marker too; only a service without a grace grants without the marker, and it grants after a restart
-- regardless): the grace is over, and its EXISTS is left out of a lock cycle's grant.
if not lastFence then
  --#include restart-grace.lua (defines restartGraceLeft)
  local graceLeft = restartGraceLeft(KEYS[2], tonumber(RESTART_GRACE_MILLIS))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace
  end
end
local refused = refusedGrant and refusedGrant('HSET', KEYS[1], 'PEXPIRE', KEYS[1])
if refused then
  return refused
end
local _, token = grantAnew(KEYS[1], OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, watched, lastFence, lastFence, nil)
return token
