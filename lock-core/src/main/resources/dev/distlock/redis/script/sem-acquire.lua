-- Takes permits of a semaphore: granted while the permits in use plus those asked for stay within the limit this call
-- names. Each grant is one holder with its own lease, fencing token and hold ids, as a reader of a read lock has.
-- KEYS[1]  the leases and KEYS[2] the permits (see sem-count.lua)
-- KEYS[3]  this holder's hash: 'fence' = its fencing token, 'holds', 'watched' and hold fields as in acquire.lua
-- KEYS[4]  the last fencing token of the semaphore
-- KEYS[5]  the queue of a fair semaphore: waiting holder tokens by arrival (1, 2, 3, ...)
-- KEYS[6]  the places: the same tokens, by when each place lapses unless refreshed (Redis ms)
-- ARGV[1]  holder token; ARGV[2] hold id; ARGV[3] lease in ms; ARGV[4] how long to keep the last fencing token, in ms
-- ARGV[5]  '1' when the watchdog renews this acquisition; ARGV[6] '1' for a re-entry (see acquire.lua)
-- ARGV[7]  the limit; ARGV[8] the permits asked for
-- ARGV[9]  '1' for a fair semaphore: granted only to the first waiter, or when nobody waits
-- ARGV[10] how long a fair waiter's place lasts unless refreshed, in ms; 0 for a call that joins no queue
-- ARGV[11] '1' when the caller waits if refused; ARGV[12] release channel; ARGV[13] the publish command
-- KEYS[7]  the restart grace marker; ARGV[14] the restart grace in ms (see acquire.lua)
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the holder gone, or
-- -1 - (ms until it is worth trying again: the earliest lease end, or when the first waiter's place lapses) when not.
-- A retried call (the holder's token still holds permits) records its hold id once and never counts permits twice.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('ZADD', KEYS[1], 'ZREM', KEYS[1], 'PEXPIRE', KEYS[1], 'HSET', KEYS[2],
  'HDEL', KEYS[2], 'PEXPIRE', KEYS[2], 'HSETNX', KEYS[3], 'HINCRBY', KEYS[3], 'DEL', KEYS[3], 'HSET', KEYS[3],
  'PEXPIRE', KEYS[3], 'SET', KEYS[4], 'ZADD', KEYS[5], 'ZREM', KEYS[5], 'ZADD', KEYS[6], 'ZREM', KEYS[6])
if refused then
  return refused
end
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include sem-count.lua (defines permitsInUse, keepUntil)
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local lease = tonumber(ARGV[3])
local leaseEnd = string.format('%d', nowMillis + lease)
local watched = ARGV[5] == '1'
local holdLease = watched and 'w' or leaseEnd -- 'watched' and the hold fields as in acquire.lua
local count = permitsInUse(KEYS[1], KEYS[2], nowMillis)
local heldUntil = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]))
if heldUntil and redis.call('HEXISTS', KEYS[3], 'holds') == 1 then
  addHold(KEYS[3], ARGV[2], holdLease, watched) -- the same holder again (a retry): its permits count once
  if heldUntil < nowMillis + lease then
    redis.call('ZADD', KEYS[1], leaseEnd, ARGV[1])
  end
  if redis.call('PTTL', KEYS[3]) < lease then
    redis.call('PEXPIRE', KEYS[3], lease)
  end
  keepUntil(KEYS[1], KEYS[2], lease)
  return tonumber(redis.call('HGET', KEYS[3], 'fence'))
end
if ARGV[6] == '1' then
  return 0
end
local limit, asked = tonumber(ARGV[7]), tonumber(ARGV[8])
local fair, placeLease = ARGV[9] == '1', tonumber(ARGV[10])
local first
if fair then
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[6], '-inf', nowMillis)) do -- waiters that stopped refreshing
    redis.call('ZREM', KEYS[5], gone)
    redis.call('ZREM', KEYS[6], gone)
  end
  first = redis.call('ZRANGE', KEYS[5], 0, 0)[1]
end
if (not first or first == ARGV[1]) and count + asked <= limit then
  local graceLeft = restartGraceLeft(KEYS[7], tonumber(ARGV[14]))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace (see acquire.lua)
  end
  refused = fair and refusedGrant(ARGV[13], ARGV[12]) -- may wake the next waiter: checked before the writes
  if refused then
    return refused
  end
  -- A new grant: the token keeps increasing after the semaphore expired or was lost in a restart (see acquire.lua).
  local fence = math.max(tonumber(redis.call('GET', KEYS[4]) or 0) + 1, now[1] * 1000000 + now[2])
  redis.call('SET', KEYS[4], string.format('%d', fence), 'PX', ARGV[4])
  -- A 'released' mark of this token stays as long as it would have (see read-acquire.lua).
  local markedFor = (redis.call('HEXISTS', KEYS[3], 'released') == 1) and redis.call('PTTL', KEYS[3]) or 0
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[3], 'fence', string.format('%d', fence), 'holds', 1, 'watched', watched and 1 or 0,
    ARGV[2], holdLease)
  if markedFor ~= 0 then
    redis.call('HSET', KEYS[3], 'released', 1)
  end
  redis.call('PEXPIRE', KEYS[3], math.max(lease, markedFor))
  redis.call('ZADD', KEYS[1], leaseEnd, ARGV[1])
  redis.call('HSET', KEYS[2], ARGV[1], asked, 'count', count + asked)
  keepUntil(KEYS[1], KEYS[2], lease)
  if fair then
    redis.call('ZREM', KEYS[5], ARGV[1])
    redis.call('ZREM', KEYS[6], ARGV[1])
    if count + asked < limit and redis.call('ZCARD', KEYS[5]) > 0 then
      redis.call(ARGV[13], ARGV[12], 'next') -- permits are left: the next waiter checks now
    end
  end
  return fence
end
if fair and placeLease > 0 then
  if not redis.call('ZSCORE', KEYS[5], ARGV[1]) then
    local last = redis.call('ZRANGE', KEYS[5], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[5], (tonumber(last[2]) or 0) + 1, ARGV[1])
    first = first or ARGV[1]
  end
  redis.call('ZADD', KEYS[6], string.format('%d', nowMillis + placeLease), ARGV[1])
  for i = 5, 6 do
    if redis.call('PTTL', KEYS[i]) < placeLease then
      redis.call('PEXPIRE', KEYS[i], placeLease)
    end
  end
end
if ARGV[11] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'waiting', 1) -- the next release publishes (sem-release.lua)
end
if first and first ~= ARGV[1] then
  -- another waiter comes first: try again when its place would lapse, or when a message wakes this waiter
  return -1 - math.max(0, tonumber(redis.call('ZSCORE', KEYS[6], first) or nowMillis) - nowMillis)
end
local earliest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2]
return -1 - math.max(0, tonumber(earliest or nowMillis) - nowMillis)
