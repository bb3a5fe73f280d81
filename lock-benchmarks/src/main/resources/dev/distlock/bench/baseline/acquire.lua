-- ScriptCost's baseline: lock-core's acquire.lua as of commit 505b3d1, with its includes and argument names, as sent.
-- Acquires an exclusive lock, or re-enters it for the same owner.
-- KEYS[1]  the lock hash: 'owner' = owner token, 'holds' = open holds, 'watched' = open holds the watchdog renews,
--          one field per open hold id (its lease end in Redis ms, or 'w' when the watchdog renews it),
--          'fence' = last fencing token, 'released' = token of the last owner to free it, 'chain' = the first token
--          of the run of grants since the hash last vanished, each ended by its owner's release (see release.lua)
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
local OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, WAITING = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
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
-- An owner's hash (the lock hash, or a reader's hash) keeps one field per open hold id, with its lease end in Redis ms
-- or 'w' when the watchdog renews it; 'holds' counts the open holds and 'watched' those the watchdog renews.
-- Records hold id holdId with holdLease, once: a retried call never counts twice.
local function addHold(hash, holdId, holdLease, watched)
  if redis.call('HSETNX', hash, holdId, holdLease) == 1 then
    redis.call('HINCRBY', hash, 'holds', 1)
    if watched then
      redis.call('HINCRBY', hash, 'watched', 1)
    end
  end
end
-- extendLease(key, lease): lets key live at least lease ms from now, never shortening a longer expiry (a re-entry or
-- a renewal never cuts a longer fixed lease short). Redis 7: PEXPIRE GT, one command when the key already expires
-- (a renewal); GT treats a key with no expiry as never expiring and sets nothing, so a key just created (a first
-- reader's set, a fair waiter's queue) then gets its expiry from PEXPIRE NX. Before Redis 7, PTTL first.
-- Under the ACL guard (Redis 7 only) it runs PEXPIRE alone.
local function extendLease(key, lease)
  if redis.REDIS_VERSION_NUM then
    if redis.call('PEXPIRE', key, lease, 'GT') == 0 then
      redis.call('PEXPIRE', key, lease, 'NX')
    end
  elseif redis.call('PTTL', key) < lease then
    redis.call('PEXPIRE', key, lease)
  end
end
-- The owner of a lock hash (acquire.lua's layout) takes one more hold: recorded once (a retried call never counts
-- twice), its lease end ('w' for the watchdog's) in its field, and the hash's lease extended, never shortened. now: a
-- TIME reply, or nil to read the clock only for a fixed lease. Returns NOPERM's error reply when the ACL guard refuses
-- (nothing written), else nil.
local function reenter(hash, holdId, lease, watched, now)
  local refused = refusedGrant('HSETNX', hash, 'HINCRBY', hash, 'PEXPIRE', hash)
  if refused then
    return refused
  end
  local holdLease = 'w'
  if not watched then
    now = now or redis.call('TIME')
    holdLease = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + lease)
  end
  addHold(hash, holdId, holdLease, watched)
  extendLease(hash, lease)
  return nil
end
-- A new grant of a lock hash (acquire.lua's layout) to ownerToken, with its first hold. The fencing token is one more
-- than the last token (lastFence, nil when none is kept); without one, the Redis clock in microseconds, so that it
-- keeps increasing after the hash expired or was lost in a restart (a run of grants from a clock reading adds one
-- per grant, so it never overtakes the clock). now: a TIME reply, or nil to read the clock only when needed (no last
-- token, or a fixed lease). chain: the hash's 'chain' (see acquire.lua), nil when this grant starts a run.
-- The caller has run the ACL guard on HSET and PEXPIRE. Returns the fencing token, as text.
local function grantAnew(hash, ownerToken, holdId, lease, watched, lastFence, chain, now)
  local fence
  if lastFence and watched and not now then
    fence = tonumber(lastFence) + 1
  else
    now = now or redis.call('TIME')
    fence = math.max(tonumber(lastFence or 0) + 1, now[1] * 1000000 + now[2])
  end
  fence = string.format('%d', fence)
  local holdLease = watched and 'w' or string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + lease)
  redis.call('HSET', hash, 'owner', ownerToken, 'holds', 1, 'watched', watched and 1 or 0, holdId, holdLease,
    'fence', fence, 'chain', chain or fence)
  redis.call('PEXPIRE', hash, lease)
  return fence
end
-- The restart grace: a Redis process younger than the grace may have restarted without the data of leases that still
-- run in their holders, so it grants nothing new until then. The marker key, kept for the process's lifetime, records
-- that its grace is over, so that INFO runs once per process (per slot on a Cluster), not per call. Returns nil when a
-- new grant may go ahead, else the milliseconds until it may.
local function restartGraceLeft(marker, grace)
  if grace <= 0 or redis.call('EXISTS', marker) == 1 then
    return nil
  end
  -- uptime_in_seconds is whole seconds: count a second less, so the grace never ends early
  local uptime = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')) - 1
  if uptime * 1000 < grace then
    return grace - uptime * 1000
  end
  redis.call('SET', marker, '1')
  return nil
end
-- A release with a delay (release.lua, fair-release.lua with KEEP_HELD_MILLIS > 0) leaves the hash with owner
-- '(released)', a token no owner has, and 'until' = the end of the delay in Redis ms: held by nobody until then. The
-- hash itself lives on for the token retention, or the delay if longer, so that a retried release still finds its
-- 'released' mark after the delay (a hash that expired at the delay would report the lease lost).
-- heldFor(owner, untilMillis): how long a lock whose 'owner' field is owner stays held: 0 once a delayed release's
-- delay has ended (it may then be granted anew); nil for any other owner (held, or free when owner is nil).
local function heldFor(owner, untilMillis)
  if owner ~= '(released)' then
    return nil
  end
  local now = redis.call('TIME')
  return math.max(0, tonumber(untilMillis or 0) - (now[1] * 1000 + math.floor(now[2] / 1000)))
end
local state = redis.call('HMGET', KEYS[1], 'owner', 'fence', 'chain', 'until')
local owner = state[1]
local lease = tonumber(LEASE_MILLIS)
local watched = WATCHDOG == '1'
if owner == OWNER_TOKEN then
  return reenter(KEYS[1], HOLD_ID, lease, watched, nil) or tonumber(state[2])
end
if REENTRY == '1' then
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
  local leaseLeft = redis.call('PTTL', KEYS[1])
  if WAITING == '1' then
    redis.call('HSET', KEYS[1], 'waiting', 1) -- the only write, and the last command: needs no guard
  end
  return -1 - leaseLeft
end
local graceLeft = restartGraceLeft(KEYS[2], tonumber(RESTART_GRACE_MILLIS))
if graceLeft then
  return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace
end
local refused = refusedGrant('HSET', KEYS[1], 'PEXPIRE', KEYS[1])
if refused then
  return refused
end
return tonumber(grantAnew(KEYS[1], OWNER_TOKEN, HOLD_ID, lease, watched, state[2], state[3], nil))
