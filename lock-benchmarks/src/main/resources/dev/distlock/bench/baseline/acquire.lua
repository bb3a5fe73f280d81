-- ScriptCost's baseline: lock-core's acquire.lua as of commit e446f6b (before issue 30's cuts), with its includes, as sent.
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
-- The ACL guard: a script checks each write it may make (command and key, or the publish command and channel) before
-- its first write, so that a grant revoked while the application runs fails the whole script with NOPERM naming the
-- command, never half-way: no lock key without an expiry, no release that wrote but could not publish. Arguments:
-- command, key or channel, command, key or channel, ... Returns the error reply to return, or nil when all are
-- granted. redis.acl_check_cmd (Redis 7) runs inside the script: no round trip; before Redis 7 there is no check.
local function refusedGrant(...)
  if not redis.acl_check_cmd then
    return nil
  end
  local checks = {...}
  for i = 1, #checks, 2 do
    local command, target = checks[i], checks[i + 1]
    local publish = command == 'PUBLISH' or command == 'SPUBLISH'
    -- placeholder arguments that fit each command's arity without naming more keys: DEL key, PUBLISH channel message,
    -- the others key and two more
    local granted
    if command == 'DEL' then
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
local refused = refusedGrant('HSET', KEYS[1], 'HSETNX', KEYS[1], 'HINCRBY', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1])
if refused then
  return refused
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
-- A release with a delay (release.lua, fair-release.lua with ARGV 'keep held' > 0) leaves the hash with owner
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
-- keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...): marks the owner's last hold released with a
-- delay; the further arguments are field-value pairs to set as well.
local function keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...)
  local now = redis.call('TIME')
  local untilMillis = now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(delayMillis)
  redis.call('HSET', hash, 'owner', '(released)', 'released', ownerToken, 'until', string.format('%d', untilMillis),
    ...)
  redis.call('PEXPIRE', hash, math.max(tonumber(retentionMillis), tonumber(delayMillis)))
end
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
