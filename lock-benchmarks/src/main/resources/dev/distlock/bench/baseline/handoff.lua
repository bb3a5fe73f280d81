-- ScriptCost's baseline: lock-core's handoff.lua as of commit 505b3d1, with its includes and argument names, as sent.
-- Hands an exclusive lock from its owner's last hold straight to a waiter of the same process: the owner's release and
-- the waiter's grant in one call, with a new, higher fencing token and a fresh lease, and no release message (the lock
-- is never free). The run of grants since 'chain' goes on, so a retried release of the old owner recognises itself.
-- KEYS[1]  the lock hash (see acquire.lua)
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
-- Returns the new fencing token (> 0) when handed off; otherwise nothing changed and it returns 0 when the releasing
-- hold was released before, -1 when another owner holds the lock, -2 when nobody holds it, -3 when the owner has
-- other holds, -4 when the run reached its bound and others wait (release.lua then frees it for them).
local OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, NEW_OWNER_TOKEN, NEW_HOLD_ID, LEASE_MILLIS, WATCHDOG, LAST_OF_RUN = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
-- The ACL guard: a script checks the commands a path of it runs from its first write on (command and key, or the
-- publish command and channel) right before that first write, so that a grant revoked while the application runs
-- fails the whole script with NOPERM naming the command, never half-way: no lock key without an expiry, no release
-- that wrote but could not publish. Commands before the first write need no check: a refusal there changes nothing
-- (Redis's own error, which names no command; the start-up check, access-check.lua, names every one).
-- Arguments: command, key or channel, command, key or channel, ... Returns the error reply to return, or nil when all
-- are granted. redis.acl_check_cmd (Redis 7) runs inside the script: no round trip; before Redis 7 there is no check.
local function refusedGrant(...)
  if not redis.acl_check_cmd then
    return nil
  end
  local checks = {...}
  for i = 1, #checks, 2 do
    local command, target = checks[i], checks[i + 1]
    local publish = command == 'PUBLISH' or command == 'SPUBLISH'
    -- placeholder arguments that fit each command's arity without naming more keys: DEL key, EXISTS key (each of
    -- their arguments is a key), PUBLISH channel message, the others key and two more
    local granted
    if command == 'DEL' or command == 'EXISTS' then
      granted = redis.acl_check_cmd(command, target)
    elseif publish then
      granted = redis.acl_check_cmd(command, target, '')
    else
      granted = redis.acl_check_cmd(command, target, '0', '0')
    end
    if not granted then
      return redis.error_reply('NOPERM this user has no permissions to run the ' .. command .. ' command on the '
        .. (publish and 'release channel' or 'lock keys'))
    end
  end
  return nil
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
  if state[1] then
    return -1
  end
  return -2
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
local refused = refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1])
if refused then
  return refused
end
local fence = tonumber(state[3]) + 1
local watched = WATCHDOG == '1'
local lease = tonumber(LEASE_MILLIS)
local holdLease = 'w'
if not watched then
  local now = redis.call('TIME')
  holdLease = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + lease)
end
redis.call('HDEL', KEYS[1], HOLD_ID)
redis.call('HSET', KEYS[1], 'owner', NEW_OWNER_TOKEN, 'holds', 1, 'watched', watched and 1 or 0, NEW_HOLD_ID,
  holdLease, 'fence', string.format('%d', fence))
redis.call('PEXPIRE', KEYS[1], lease)
return fence
