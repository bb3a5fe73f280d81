-- Acquires the write side of a read/write lock, or re-enters it for the same owner. A writer that must wait records
-- its intent, which keeps new readers out until it gets the lock, gives up, or stops refreshing the intent.
-- KEYS[1]  the writer's hash, in the plain lock's layout (see acquire.lua); 'fence' = the writer's token
-- KEYS[2]  the readers (see read-acquire.lua)
-- KEYS[3]  the write intent (see read-acquire.lua)
-- KEYS[4]  the last fencing token of the lock
-- ARGV[1]  owner token; ARGV[2] hold id; ARGV[3] lease in ms; ARGV[4] how long to keep the last fencing token, in ms
-- ARGV[5]  how long the intent lasts unless refreshed, in ms; 0 for a single attempt that records none
-- ARGV[6]  '1' when the watchdog renews this acquisition; ARGV[7] '1' for a re-entry (see acquire.lua)
-- KEYS[5]  the restart grace marker; ARGV[8] the restart grace in ms (see acquire.lua)
-- Returns the fencing token (> 0) when granted, 0 when a re-entry found the owner's hold gone, or
-- -1 - (ms until it is worth trying again) when not.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('HSETNX', KEYS[1], 'HINCRBY', KEYS[1], 'HSET', KEYS[1], 'PTTL', KEYS[1],
  'PEXPIRE', KEYS[1], 'HGET', KEYS[1], 'ZREMRANGEBYSCORE', KEYS[2], 'SET', KEYS[3], 'DEL', KEYS[3], 'SET', KEYS[4])
if refused then
  return refused
end
--#include restart-grace.lua (defines restartGraceLeft)
--#include add-hold.lua (defines addHold)
--#include delayed-release.lua (defines heldFor, keepReleased)
local ownerState = redis.call('HMGET', KEYS[1], 'owner', 'until')
local owner = ownerState[1]
local lease = tonumber(ARGV[3])
local watched = ARGV[6] == '1'
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
if ARGV[7] == '1' then
  return 0
end
local heldMillis = heldFor(owner, ownerState[2]) -- a delayed release: held until its delay ends, by nobody
if heldMillis == 0 then
  owner = nil
end
local function recordIntent()
  local intent = redis.call('GET', KEYS[3])
  if tonumber(ARGV[5]) > 0 and (not intent or intent == ARGV[1]) then
    redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[5])
  end
end
if owner then
  recordIntent()
  return -1 - (heldMillis or redis.call('PTTL', KEYS[1]))
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMillis) -- readers whose lease ran out
local readers = redis.call('ZCARD', KEYS[2])
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  readers = readers - 1 -- this owner's own read lock does not keep it out
end
if readers > 0 then
  recordIntent()
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return -1 - math.max(0, tonumber(first[2]) - nowMillis)
end
local graceLeft = restartGraceLeft(KEYS[5], tonumber(ARGV[8]))
if graceLeft then
  return -1099511627777 - graceLeft -- -1 - 2^40 - ms: refused by the restart grace (see the top)
end
local fence = string.format('%d', math.max(tonumber(redis.call('GET', KEYS[4]) or 0) + 1, now[1] * 1000000 + now[2]))
redis.call('SET', KEYS[4], fence, 'PX', ARGV[4])
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'holds', 1, 'watched', watched and 1 or 0, ARGV[2], holdLease,
  'fence', fence, 'chain', redis.call('HGET', KEYS[1], 'chain') or fence)
redis.call('PEXPIRE', KEYS[1], lease)
if redis.call('GET', KEYS[3]) == ARGV[1] then
  redis.call('DEL', KEYS[3])
end
return tonumber(fence)
