-- Releases one hold of a fair lock; the owner's last hold frees it and wakes the first waiter, naming it.
-- KEYS[1]  the lock hash (see acquire.lua); KEYS[2] the queue and KEYS[3] the places (see fair-acquire.lua)
-- ARGV[1]  owner token; ARGV[2] hold id; ARGV[3] release channel
-- ARGV[4]  how long to keep the last fencing token once the lock is free, in milliseconds
-- ARGV[5]  0 to free the lock now; otherwise keep it held, unrenewed, for this many more milliseconds
-- ARGV[6]  the publish command (see release.lua)
-- ARGV[7]  the fencing token of the owner's grant; ARGV[8] '1' when the watchdog renews this hold (see release.lua)
-- Returns what release.lua returns.
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('HDEL', KEYS[1], 'HINCRBY', KEYS[1], 'HGET', KEYS[1], 'HGETALL', KEYS[1],
  'PEXPIREAT', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1], 'ZREM', KEYS[2], 'ZRANGE', KEYS[2],
  'ZRANGEBYSCORE', KEYS[3])
if refused then
  return refused
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease)
--#include delayed-release.lua (defines heldFor, keepReleased)
local state = redis.call('HMGET', KEYS[1], 'owner', 'released', 'chain', 'fence')
if state[1] ~= ARGV[1] then
  return notOwnerReply(state, ARGV[1], tonumber(ARGV[7]))
end
if redis.call('HDEL', KEYS[1], ARGV[2]) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[1], 'holds', -1) > 0 then
  keepLongestLease(KEYS[1], ARGV[8] == '1')
  return 2
end
if tonumber(ARGV[5]) > 0 then
  keepReleased(KEYS[1], ARGV[1], ARGV[5], ARGV[4]) -- held, unrenewed (see release.lua)
  return 1
end
refused = refusedGrant(ARGV[6], ARGV[3]) -- the last hold may wake a waiter: the channel is checked before the writes
if refused then
  return refused
end
redis.call('HDEL', KEYS[1], 'owner', 'holds', 'watched')
redis.call('HSET', KEYS[1], 'released', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', nowMillis)) do
  redis.call('ZREM', KEYS[2], gone)
  redis.call('ZREM', KEYS[3], gone)
end
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if first then
  redis.call(ARGV[6], ARGV[3], first)
end
return 1
