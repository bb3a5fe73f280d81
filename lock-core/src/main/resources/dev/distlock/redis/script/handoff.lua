-- Hands an exclusive lock from its owner's last hold straight to a waiter of the same process: the owner's release and
-- the waiter's grant in one call, with a new, higher fencing token and a fresh lease, and no release message (the lock
-- is never free). The run of grants since 'chain' goes on, so a retried release of the old owner recognises itself.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the freed mark (see freed-mark.lua): left for the releasing acquisition by every hand-off, so that a retried
--          call whose first run handed the lock off recognises it after the new holder's lease lapsed
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN      the releasing owner token
-- ARGV[2]  HOLD_ID          the releasing hold id
-- ARGV[3]  FENCING_TOKEN    the fencing token of the releasing owner's grant
-- ARGV[4]  NEW_OWNER_TOKEN  the new owner token
-- ARGV[5]  NEW_HOLD_ID      the new hold id
-- ARGV[6]  LEASE_MILLIS     the new lease
-- ARGV[7]  WATCHDOG         '1' when the watchdog renews the new hold, '0' for a fixed lease
-- ARGV[8]  LAST_OF_RUN      '1' when the process's run of hand-offs reached its bound: hand off only if no other
--                           waiter was refused
-- ARGV[9]  TOKEN_RETENTION_MILLIS  how long the freed mark stays
-- Returns the new fencing token (> 0) when handed off; otherwise nothing changed and it returns 0 when the releasing
-- hold was released before, -1 when another owner holds the lock, -2 when nobody holds it, -3 when the owner has
-- other holds, -4 when the run reached its bound and others wait (release.lua then frees it for them).
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include freed-mark.lua (defines freedMark, freedBefore)
-- A release the lock is no longer the owner's to give: 0 when the freed mark names this acquisition (a retried call
-- whose first run handed it off), else the reply (-1 held by another, -2 by nobody).
local function lostOr(reply)
  return freedBefore(KEYS[2], OWNER_TOKEN, HOLD_ID) and 0 or reply
end
local state = redis.call('HMGET', KEYS[1], 'owner', 'holds', 'fence', 'chain', HOLD_ID, NEW_HOLD_ID, 'waiting')
if state[1] ~= OWNER_TOKEN then
  local token = tonumber(FENCING_TOKEN)
  local handed = state[3] and state[4] and tonumber(state[4]) <= token and token < tonumber(state[3])
  if state[1] == NEW_OWNER_TOKEN and state[6] and handed then
    return tonumber(state[3]) -- a retried call whose first run handed the lock off
  end
  if handed then
    return 0
  end
  return lostOr(state[1] and -1 or -2)
end
if not state[5] then
  return 0
end
if state[2] ~= '1' then
  return -3
end
if LAST_OF_RUN == '1' and state[7] then
  return -4
end
local fence = tonumber(state[3]) + 1
local watched = WATCHDOG == '1'
local freed = freedMark(KEYS[2], OWNER_TOKEN, HOLD_ID)
local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1], 'SET', KEYS[2])
if refused then
  return refused
end
redis.call('SET', KEYS[2], freed, 'PX', TOKEN_RETENTION_MILLIS)
redis.call('HDEL', KEYS[1], HOLD_ID, OWNER_TOKEN) -- the old owner's renewed holds' count (see add-hold.lua)
if watched then
  redis.call('HSET', KEYS[1], 'owner', NEW_OWNER_TOKEN, 'holds', '1', NEW_OWNER_TOKEN, '1', NEW_HOLD_ID, 'w', 'fence',
    string.format('%d', fence))
else
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'owner', NEW_OWNER_TOKEN, 'holds', '1', NEW_HOLD_ID,
    string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(LEASE_MILLIS)), 'fence',
    string.format('%d', fence))
end
redis.call('PEXPIRE', KEYS[1], LEASE_MILLIS)
return fence
