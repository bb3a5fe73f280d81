-- Releases one hold of a fair lock; the owner's last hold frees it and wakes the first waiter, naming it.
-- KEYS[1]  the lock hash (see acquire.lua); KEYS[2] the queue and KEYS[3] the places (see fair-acquire.lua)
-- KEYS[4]  the freed mark (see freed-mark.lua)
-- The arguments (see ScriptArgument; as in release.lua):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  FENCING_TOKEN
-- ARGV[4]  WATCHDOG
-- ARGV[5]  KEEP_HELD_MILLIS
-- ARGV[6]  TOKEN_RETENTION_MILLIS
-- ARGV[7]  CHANNEL
-- ARGV[8]  PUBLISH_COMMAND
-- Returns what release.lua returns. Every path that ends a hold adds it to the freed mark, as release.lua does.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include end-hold.lua (defines notOwnerReply, keepLongestLease, keepReleased)
--#include fair-queue.lua (defines dropLapsed)
local state = redis.call('HMGET', KEYS[1], 'owner', 'released', 'chain', 'fence', 'holds', HOLD_ID)
if state[1] ~= OWNER_TOKEN then
  return notOwnerReply(state, OWNER_TOKEN, tonumber(FENCING_TOKEN), KEYS[4], HOLD_ID)
end
if not state[6] then
  return 0
end
local freed = freedMark(KEYS[4], OWNER_TOKEN, HOLD_ID)
if state[5] ~= '1' then
  -- one of several holds: the freed mark keeps its end, should the others' lease take the key (see release.lua)
  local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'HINCRBY', KEYS[1], 'HGET', KEYS[1],
    'HGETALL', KEYS[1], 'PEXPIREAT', KEYS[1], 'SET', KEYS[4])
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID)
  redis.call('HINCRBY', KEYS[1], 'holds', '-1')
  keepLongestLease(KEYS[1], OWNER_TOKEN, WATCHDOG == '1', true)
  redis.call('SET', KEYS[4], freed, 'PX', TOKEN_RETENTION_MILLIS)
  return 2
end
if tonumber(KEEP_HELD_MILLIS) > 0 then
  local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1], 'SET',
    KEYS[4])
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID, OWNER_TOKEN) -- the renewed holds' count: no renewal may extend the delay
  -- held, unrenewed
  keepReleased(KEYS[1], KEYS[4], freed, OWNER_TOKEN, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, 'holds', 0)
  return 1
end
-- the last hold may wake a waiter: the channel is checked before the writes
local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'PEXPIRE', KEYS[1], 'ZREM', KEYS[2], 'ZREM', KEYS[3],
  'ZRANGE', KEYS[2], 'ZRANGEBYSCORE', KEYS[3], 'SET', KEYS[4], PUBLISH_COMMAND, CHANNEL)
if refused then
  return refused
end
redis.call('HDEL', KEYS[1], HOLD_ID, 'owner', 'holds', OWNER_TOKEN) -- 'fence' and 'chain' stay (see release.lua)
redis.call('PEXPIRE', KEYS[1], TOKEN_RETENTION_MILLIS)
redis.call('SET', KEYS[4], freed, 'PX', TOKEN_RETENTION_MILLIS)
local now = redis.call('TIME')
dropLapsed(KEYS[2], KEYS[3], now[1] * 1000 + math.floor(now[2] / 1000))
local first = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if first then
  redis.call(PUBLISH_COMMAND, CHANNEL, first)
end
return 1
