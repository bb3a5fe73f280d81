-- ScriptCost's baseline: lock-core's release.lua as of commit 505b3d1, with its includes and argument names, as sent.
-- Releases one hold of an exclusive lock, and frees the lock when it was the owner's last hold.
-- KEYS[1]  the lock hash (see acquire.lua)
-- The arguments (see ScriptArgument; every release script takes the first eight at these positions):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  FENCING_TOKEN            the token of the owner's grant
-- ARGV[4]  WATCHDOG                 '1' when the watchdog renews this hold, '0' for a fixed lease
-- ARGV[5]  KEEP_HELD_MILLIS         0 to free the lock now; otherwise keep it held, unrenewed, for this many more
--                                   milliseconds (see delayed-release.lua)
-- ARGV[6]  TOKEN_RETENTION_MILLIS   how long to keep the last fencing token once the lock is free
-- ARGV[7]  CHANNEL                  the release channel
-- ARGV[8]  PUBLISH_COMMAND          PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster
-- ARGV[9]  MESSAGE                  the release message: the releasing client's id
-- ARGV[10] PUBLISH_ONLY_TO_WAITERS  '1' to publish the release only when a waiting caller was refused since the
--                                   last one ('waiting', set by acquire.lua): other processes' waiters always were;
--                                   this process wakes its own without a message
-- Returns 1 when the lock was freed (or left to expire), 2 when other holds of the owner remain, 0 when this hold was
-- released before (a retried call), -1 when another owner holds the lock, -2 when nobody holds it (the lease ran out).
local OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND, MESSAGE, PUBLISH_ONLY_TO_WAITERS = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10]
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
-- What the release scripts share about an owner's hash (see add-hold.lua).
-- notOwnerReply: the reply to a release whose owner no longer holds the lock (state: HMGET of 'owner', 'released',
-- 'chain', 'fence'). A retried call whose first run freed the lock is recognised: this owner freed it last, or its
-- grant (fencing token) lies in the run of grants since 'chain', each ended by its owner's release, so this one was
-- released too (an expiry deletes the hash): 0. Else -1 when another owner holds it, -2 when nobody does.
local function notOwnerReply(state, ownerToken, token)
  if state[2] == ownerToken or (state[3] and tonumber(state[3]) <= token and token < tonumber(state[4])) then
    return 0
  end
  if state[1] then
    return -1
  end
  return -2
end
-- keepLongestLease: after one of several holds of hash ended (watchdogHold: the watchdog renewed it), when no open
-- hold is renewed the hash keeps the longest lease its open holds asked for, and no more. Returns that lease end
-- (Redis ms), or 0 when the expiry was left as it is.
local function keepLongestLease(hash, watchdogHold)
  local watched
  if watchdogHold then
    watched = redis.call('HINCRBY', hash, 'watched', -1)
  else
    watched = tonumber(redis.call('HGET', hash, 'watched'))
  end
  if watched ~= 0 then
    return 0
  end
  local fields, leaseEnd = redis.call('HGETALL', hash), 0
  for i = 1, #fields, 2 do
    if string.match(fields[i], '^%d+$') then
      leaseEnd = math.max(leaseEnd, tonumber(fields[i + 1]) or 0)
    end
  end
  if leaseEnd > 0 then
    redis.call('PEXPIREAT', hash, leaseEnd)
  end
  return leaseEnd
end
-- keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...): marks the owner's last hold released with a
-- delay (see delayed-release.lua); the further arguments are field-value pairs to set as well.
local function keepReleased(hash, ownerToken, delayMillis, retentionMillis, ...)
  local now = redis.call('TIME')
  local untilMillis = now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(delayMillis)
  redis.call('HSET', hash, 'owner', '(released)', 'released', ownerToken, 'until', string.format('%d', untilMillis),
    ...)
  redis.call('PEXPIRE', hash, math.max(tonumber(retentionMillis), tonumber(delayMillis)))
end
local state = redis.call('HMGET', KEYS[1], 'owner', 'released', 'chain', 'fence', 'holds', HOLD_ID, 'waiting')
if state[1] ~= OWNER_TOKEN then
  return notOwnerReply(state, OWNER_TOKEN, tonumber(FENCING_TOKEN)) -- 0 for a retried call whose first run freed it
end
if not state[6] then
  return 0
end
if state[5] ~= '1' then
  local refused = refusedGrant('HDEL', KEYS[1], 'HINCRBY', KEYS[1], 'HGET', KEYS[1], 'HGETALL', KEYS[1],
    'PEXPIREAT', KEYS[1])
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID)
  redis.call('HINCRBY', KEYS[1], 'holds', -1)
  keepLongestLease(KEYS[1], WATCHDOG == '1')
  return 2
end
if tonumber(KEEP_HELD_MILLIS) > 0 then
  -- Nobody, this owner included, acquires it before the delay ends, and no renewal extends it: the owner field no
  -- longer names a token. Waiters re-check when the delay ends (see delayed-release.lua).
  local refused = refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1])
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID)
  keepReleased(KEYS[1], OWNER_TOKEN, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, 'holds', 0)
  return 1
end
-- The owner's last hold: one HDEL of its hold id and the owner's fields. A release that would publish checks the
-- channel before the writes too.
local publish = state[7] or PUBLISH_ONLY_TO_WAITERS ~= '1'
local refused
if publish then
  refused = refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1], PUBLISH_COMMAND, CHANNEL)
else
  refused = refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1])
end
if refused then
  return refused
end
redis.call('HDEL', KEYS[1], HOLD_ID, 'owner', 'holds', 'watched', 'waiting')
redis.call('HSET', KEYS[1], 'released', OWNER_TOKEN)
redis.call('PEXPIRE', KEYS[1], TOKEN_RETENTION_MILLIS)
if publish then
  redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE)
end
return 1
