-- Acquires a fair lock, or re-enters it for the same owner. The lock goes to the first waiter of a queue that Redis
-- orders by arrival; a waiter keeps its place only while it refreshes it, so one that died drops out.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the queue: a sorted set of waiting owner tokens, scored by arrival (1, 2, 3, ...)
-- KEYS[3]  the places: the same tokens, scored by when each place lapses unless refreshed (Redis ms)
-- ARGV[1]  owner token; ARGV[2] hold id; ARGV[3] lease in ms
-- ARGV[4]  how long a place lasts unless refreshed, in ms; 0 for a single attempt that joins no queue
-- ARGV[5]  '1' when the watchdog renews this acquisition; ARGV[6] '1' for a re-entry (see acquire.lua)
-- ARGV[7]  release channel; ARGV[8] the publish command (see release.lua)
-- KEYS[4]  the restart grace marker; ARGV[9] the restart grace in ms (see acquire.lua)
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone, or
-- -1 - (ms until it is worth trying again) when not.
-- A new grant names the waiter that is now first on the release channel: that waiter last heard of another holder
-- or another first waiter, so it re-checks now and learns this holder's lease, to re-check right at its expiry
-- (a lease that runs out publishes nothing).
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('HSETNX', KEYS[1], 'HINCRBY', KEYS[1], 'HSET', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1], 'HGET', KEYS[1], 'ZREM', KEYS[2], 'ZADD', KEYS[2], 'ZRANGE', KEYS[2], 'ZRANGEBYSCORE', KEYS[3])
if refused then
  return refused
end
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include delayed-release.lua (defines heldFor, keepReleased)
local ownerState = redis.call('HMGET', KEYS[1], 'owner', 'until')
local owner = ownerState[1]
local lease = tonumber(ARGV[3])
local watched = ARGV[5] == '1'
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local holdLease = watched and 'w' or string.format('%d', nowMillis + lease) -- see acquire.lua
if owner == ARGV[1] then
  addHold(KEYS[1], ARGV[2], holdLease, watched)
  if redis.call('PTTL', KEYS[1]) < lease then
    redis.call('PEXPIRE', KEYS[1], lease)
  end
  return tonumber(redis.call('HGET', KEYS[1], 'fence'))
end
if ARGV[6] == '1' then
  return 0
end
local heldMillis = heldFor(owner, ownerState[2]) -- a delayed release: held until its delay ends, by nobody
if heldMillis == 0 then
  owner = nil
end
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowMillis)) do -- waiters that stopped refreshing
  redis.call('ZREM', KEYS[2], gone)
  redis.call('ZREM', KEYS[3], gone)
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if not owner and (not first or first == ARGV[1]) then
  local graceLeft = restartGraceLeft(KEYS[4], tonumber(ARGV[9]))
  if graceLeft then
    return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace (see the top)
  end
  -- A new grant; the token as in acquire.lua. It may name the next waiter: the channel is checked before the writes.
  refused = refusedGrant(ARGV[8], ARGV[7])
  if refused then
    return refused
  end
  local last = redis.call('HMGET', KEYS[1], 'fence', 'chain')
  local fence = string.format('%d', math.max(tonumber(last[1] or 0) + 1, now[1] * 1000000 + now[2]))
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holds', 1, 'watched', watched and 1 or 0, ARGV[2], holdLease,
    'fence', fence, 'chain', last[2] or fence)
  redis.call('PEXPIRE', KEYS[1], lease)
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('ZREM', KEYS[3], ARGV[1])
  local following = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if following then
    redis.call(ARGV[8], ARGV[7], following)
  end
  return tonumber(fence)
end
local placeLease = tonumber(ARGV[4])
if placeLease > 0 then
  if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    redis.call('ZADD', KEYS[2], (tonumber(last[2]) or 0) + 1, ARGV[1])
  end
  redis.call('ZADD', KEYS[3], string.format('%d', nowMillis + placeLease), ARGV[1])
  for i = 2, 3 do
    if redis.call('PTTL', KEYS[i]) < placeLease then
      redis.call('PEXPIRE', KEYS[i], placeLease)
    end
  end
end
if owner then
  return -1 - (heldMillis or redis.call('PTTL', KEYS[1]))
end
-- Free, but another waiter comes first: try again when its place would lapse, or when its grant names this waiter.
return -1 - math.max(0, tonumber(redis.call('ZSCORE', KEYS[3], first) or nowMillis) - nowMillis)
