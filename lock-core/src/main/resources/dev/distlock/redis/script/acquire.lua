-- Acquires an exclusive lock, or re-enters it for the same owner.
-- KEYS[1]  the lock hash: 'owner' = owner token, 'holds' = open holds, 'watched' = open holds the watchdog renews,
--          one field per open hold id (its lease end in Redis ms, or 'w' when the watchdog renews it),
--          'fence' = last fencing token, 'released' = token of the last owner to free it, 'chain' = the first token
--          of the run of grants since the hash last vanished, each ended by its owner's release (see release.lua)
-- ARGV[1]  owner token
-- ARGV[2]  hold id, one per acquisition, so that a retried call never counts twice
-- ARGV[3]  lease in milliseconds
-- ARGV[4]  '1' when the watchdog renews this acquisition, '0' for a fixed lease
-- ARGV[5]  '1' for a re-entry: granted only while this owner still holds the lock, never as a new grant
-- ARGV[6]  '1' when the caller waits if refused: a refusal then sets 'waiting', so that a process handing the lock
--          on among its own waiters (handoff.lua) knows that others wait
-- KEYS[2]  the restart grace marker (see restartGraceLeft); ARGV[7] the restart grace in ms, 0 for none
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone, or
-- -1 - (the holder's remaining lease in ms) when another owner holds it.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('HSET', KEYS[1], 'HSETNX', KEYS[1], 'HINCRBY', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1])
if refused then
  return refused
end
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include delayed-release.lua (defines heldFor, keepReleased)
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'chain', 'until')
local owner = state[1]
local lease = tonumber(ARGV[3])
local watched = ARGV[4] == '1'
local now
if owner == ARGV[1] then
  local holdLease = 'w'
  if not watched then
    now = redis.call('TIME')
    holdLease = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + lease)
  end
  addHold(KEYS[1], ARGV[2], holdLease, watched)
  if redis.call('PTTL', KEYS[1]) < lease then -- a re-entry never shortens the lease
    redis.call('PEXPIRE', KEYS[1], lease)
  end
  return tonumber(state[2])
end
if ARGV[5] == '1' then
  return 0
end
local releasedFor = heldFor(owner, state[4])
if releasedFor then
  if releasedFor > 0 then
    return -1 - releasedFor
  end
  owner = nil -- a delayed release whose delay has ended: free
end
if owner then
  if ARGV[6] == '1' then
    redis.call('HSET', KEYS[1], 'waiting', 1)
  end
  return -1 - redis.call('PTTL', KEYS[1])
end
local graceLeft = restartGraceLeft(KEYS[2], tonumber(ARGV[7]))
if graceLeft then
  return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace (see the top)
end
-- A new grant. The token is one more than the last token while the hash keeps it; without one, the Redis clock in
-- microseconds, so that it keeps increasing after the hash has expired or was lost in a restart (a run of grants from
-- a clock reading adds one per grant, so it never overtakes the clock). A fixed lease needs the clock anyway.
local fence
local holdLease = 'w'
if not watched or not state[2] then
  now = redis.call('TIME')
  fence = math.max(tonumber(state[2] or 0) + 1, now[1] * 1000000 + now[2])
  if not watched then
    holdLease = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + lease)
  end
else
  fence = tonumber(state[2]) + 1
end
fence = string.format('%d', fence)
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holds', 1, 'watched', watched and 1 or 0, ARGV[2], holdLease,
  'fence', fence, 'chain', state[3] or fence)
redis.call('PEXPIRE', KEYS[1], lease)
return tonumber(fence)
