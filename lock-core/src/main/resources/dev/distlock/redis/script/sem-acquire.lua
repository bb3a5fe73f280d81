-- Takes permits of a semaphore: granted while the permits in use plus those asked for stay within the limit this call
-- names. Each grant is one holder with its own lease, fencing token and hold ids, as a reader of a read lock has.
-- KEYS[1]  the leases and KEYS[2] the permits (see sem-count.lua)
-- KEYS[3]  this holder's hash: 'fence' = its fencing token, 'holds', 'watched' and hold fields as in acquire.lua
-- KEYS[4]  the last fencing token of the semaphore
-- KEYS[5]  the queue of a fair semaphore: waiting holder tokens by arrival (1, 2, 3, ...)
-- KEYS[6]  the places: the same tokens, by when each place lapses unless refreshed (Redis ms)
-- KEYS[7]  the restart grace marker (see restart-grace.lua)
-- The arguments (see ScriptArgument; the first six as in acquire.lua, the seventh as in read-acquire.lua):
-- ARGV[1]  OWNER_TOKEN             the holder token
-- ARGV[2]  HOLD_ID
-- ARGV[3]  LEASE_MILLIS
-- ARGV[4]  WATCHDOG
-- ARGV[5]  REENTRY                 (a semaphore is never re-entered: a retried call's holder token still holds)
-- ARGV[6]  RESTART_GRACE_MILLIS
-- ARGV[7]  TOKEN_RETENTION_MILLIS  how long to keep the last fencing token
-- ARGV[8]  PERMIT_LIMIT            the limit
-- ARGV[9]  PERMITS                 the permits asked for
-- ARGV[10] FAIR                    '1' for a fair semaphore: granted only to the first waiter, or when nobody waits
-- ARGV[11] PLACE_LEASE_MILLIS      how long a fair waiter's place lasts unless refreshed; 0 for a call that joins no
--                                  queue
-- ARGV[12] WAITING                 '1' when the caller waits if refused: the next release publishes
-- ARGV[13] CHANNEL                 the release channel
-- ARGV[14] PUBLISH_COMMAND         (see release.lua)
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the holder gone, or
-- -1 - (ms until it is worth trying again: the earliest lease end, or when the first waiter's place lapses) when not
-- (-1 - 2^40 - ms: refused by the restart grace).
-- A retried call (the holder's token still holds permits) records its hold id once and never counts permits twice.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include fair-queue.lua (defines dropLapsed)
--#include sem-count.lua (defines countRefused, countLive, keepUntil)
--#include lease-end.lua (defines endsFrom)
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local startMillis = endsFrom(now) -- the lease end written counts from here
-- Numbers go to Redis as text where the text is at hand: Redis 7.0 formats a Lua number argument with '%.17g' on
-- every call, which costs about half an HSET of one field (CycleInstructions, lock-benchmarks).
local lease = tonumber(LEASE_MILLIS)
local leaseEnd = string.format('%d', startMillis + lease)
local watched = WATCHDOG == '1'
local holdLease = watched and 'w' or leaseEnd -- 'watched' and the hold fields as in acquire.lua
local permitsState = redis.call('HMGET', KEYS[2], 'count', 'layout', 'waiting', OWNER_TOKEN)
if permitsState[2] then
  --#include layout.lua (defines otherLayout)
  return otherLayout(permitsState[2])
end
local count = tonumber(permitsState[1] or 0)
-- A holder is counted in the permits (read above) while it is in the leases: only then can this be a retried call.
local heldUntil = permitsState[4] and tonumber(redis.call('ZSCORE', KEYS[1], OWNER_TOKEN) or 0)
local refused
if heldUntil and heldUntil > nowMillis and redis.call('HEXISTS', KEYS[3], 'holds') == 1 then
  refused = refusedGrant and refusedGrant('HSETNX', KEYS[3], 'HINCRBY', KEYS[3], 'ZADD', KEYS[1], 'PTTL', KEYS[3],
    'PEXPIRE', KEYS[3], 'PTTL', KEYS[1], 'PEXPIRE', KEYS[1], 'PTTL', KEYS[2], 'PEXPIRE', KEYS[2], 'HGET', KEYS[3])
  if refused then
    return refused
  end
  addHold(KEYS[3], HOLD_ID, holdLease, watched and 'watched') -- the same holder again (a retry): its permits count once
  if heldUntil < startMillis + lease then
    redis.call('ZADD', KEYS[1], leaseEnd, OWNER_TOKEN)
  end
  extendLease(KEYS[3], LEASE_MILLIS)
  keepUntil(KEYS[1], KEYS[2], LEASE_MILLIS)
  return tonumber(redis.call('HGET', KEYS[3], 'fence'))
end
if REENTRY == '1' then
  return 0
end
local limit, asked = tonumber(PERMIT_LIMIT), tonumber(PERMITS)
local earliest -- the earliest live lease end, looked up only by a count that would refuse (see sem-count.lua), or
-- when this token's own lease ran out (a retried call, too late): its old permits go before it is counted anew
if count + asked > limit or heldUntil then
  refused = countRefused(KEYS[1], KEYS[2])
  if refused then
    return refused
  end
  count, earliest = countLive(KEYS[1], KEYS[2], count, nowMillis)
end
local fair = FAIR == '1'
local first
if fair then
  refused = refusedGrant and refusedGrant('ZREM', KEYS[5], 'ZREM', KEYS[6], 'ZRANGE', KEYS[5])
  if refused then
    return refused
  end
  dropLapsed(KEYS[5], KEYS[6], nowMillis) -- waiters that stopped refreshing their places
  first = redis.call('ZRANGE', KEYS[5], 0, 0)[1]
end
if (not first or first == OWNER_TOKEN) and count + asked <= limit then
  local graceLeft = restartGraceLeft(KEYS[7], tonumber(RESTART_GRACE_MILLIS))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace (see acquire.lua)
  end
  -- A new grant: the token keeps increasing after the semaphore expired or was lost in a restart (see acquire.lua).
  -- max(last token + 1, the clock in µs): the clock's, written with the last read back in one SET ... GET, and in
  -- the rare case that the last is not below it (the same µs, or a clock behind after a failover) written again.
  local fence = now[1] * 1000000 + now[2]
  local fenceText = string.format('%d', fence)
  -- The grant's writes, and a fair grant's message to the next waiter, are checked before the first of them.
  refused = refusedGrant and refusedGrant('SET', KEYS[4], 'HSET', KEYS[3], 'HEXISTS', KEYS[3], 'PTTL', KEYS[3],
    'DEL', KEYS[3], 'PEXPIRE', KEYS[3], 'ZADD', KEYS[1], 'HSET', KEYS[2], 'PTTL', KEYS[1], 'PEXPIRE', KEYS[1],
    'PTTL', KEYS[2], 'PEXPIRE', KEYS[2])
    or (fair and refusedGrant and refusedGrant('ZREM', KEYS[5], 'ZREM', KEYS[6],
      'ZCARD', KEYS[5], PUBLISH_COMMAND, CHANNEL))
  if refused then
    return refused
  end
  local last = tonumber(redis.call('SET', KEYS[4], fenceText, 'PX', TOKEN_RETENTION_MILLIS, 'GET') or 0)
  if last >= fence then
    fence = last + 1
    fenceText = string.format('%d', fence)
    redis.call('SET', KEYS[4], fenceText, 'PX', TOKEN_RETENTION_MILLIS)
  end
  local holder = {'fence', fenceText, 'holds', '1', 'watched', watched and '1' or '0', HOLD_ID, holdLease}
  -- A new token (every acquisition's) has no hash yet: its four fields are new, and so is its expiry. A 'released'
  -- mark of this token (see read-acquire.lua) stays, as long as it would have; fields of an earlier grant of it go.
  if redis.call('HSET', KEYS[3], unpack(holder)) < 4 then
    local markedFor = (redis.call('HEXISTS', KEYS[3], 'released') == 1) and redis.call('PTTL', KEYS[3]) or 0
    redis.call('DEL', KEYS[3])
    redis.call('HSET', KEYS[3], unpack(holder))
    if markedFor ~= 0 then
      redis.call('HSET', KEYS[3], 'released', 1)
    end
    redis.call('PEXPIRE', KEYS[3], math.max(lease, markedFor))
  elseif not redis.REDIS_VERSION_NUM or redis.call('PEXPIRE', KEYS[3], LEASE_MILLIS, 'NX') == 0 then
    extendLease(KEYS[3], LEASE_MILLIS) -- before Redis 7, or a 'released' mark's expiry, never shortened
  end
  redis.call('ZADD', KEYS[1], leaseEnd, OWNER_TOKEN)
  if count > 0 then
    redis.call('HSET', KEYS[2], OWNER_TOKEN, PERMITS, 'count', count + asked)
    keepUntil(KEYS[1], KEYS[2], LEASE_MILLIS)
  else -- the only holder counted: its lease is the latest (the leases key is new, a permits hash left over holds none)
    redis.call('HSET', KEYS[2], OWNER_TOKEN, PERMITS, 'count', PERMITS) -- count + asked, as sent
    redis.call('PEXPIRE', KEYS[1], LEASE_MILLIS)
    redis.call('PEXPIRE', KEYS[2], LEASE_MILLIS)
  end
  if fair then
    redis.call('ZREM', KEYS[5], OWNER_TOKEN)
    redis.call('ZREM', KEYS[6], OWNER_TOKEN)
    if count + asked < limit and redis.call('ZCARD', KEYS[5]) > 0 then
      redis.call(PUBLISH_COMMAND, CHANNEL, 'next') -- permits are left: the next waiter checks now
    end
  end
  return fence
end
-- Refused. The reply comes first: the writes below change neither the first waiter's place nor the leases.
local reply
if first and first ~= OWNER_TOKEN then
  -- another waiter comes first: try again when its place would lapse, or when a message wakes this waiter
  reply = -1 - math.max(0, tonumber(redis.call('ZSCORE', KEYS[6], first) or nowMillis) - nowMillis)
else
  reply = -1 - math.max(0, (earliest or nowMillis) - nowMillis)
end
if fair and PLACE_LEASE_MILLIS ~= '0' then
  local placeLease = tonumber(PLACE_LEASE_MILLIS)
  refused = refusedGrant and refusedGrant('ZADD', KEYS[5], 'ZADD', KEYS[6], 'PTTL', KEYS[5], 'PEXPIRE', KEYS[5],
    'PTTL', KEYS[6], 'PEXPIRE', KEYS[6], 'EXISTS', KEYS[2], 'HSET', KEYS[2])
  if refused then
    return refused
  end
  if not redis.call('ZSCORE', KEYS[5], OWNER_TOKEN) then
    local last = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[5], (tonumber(last[2]) or 0) + 1, OWNER_TOKEN)
  end
  redis.call('ZADD', KEYS[6], string.format('%d', nowMillis + placeLease), OWNER_TOKEN)
  extendLease(KEYS[5], PLACE_LEASE_MILLIS)
  extendLease(KEYS[6], PLACE_LEASE_MILLIS)
end
-- The next release publishes (sem-release.lua), unless it will already. Only on the permits hash there was ('count'):
-- never one without an expiry. Checked with a fair place's writes; else the only write and the last command, which
-- needs no check (see acquire.lua).
if WAITING == '1' and permitsState[1] and not permitsState[3] then
  redis.call('HSET', KEYS[2], 'waiting', '1')
end
return reply
