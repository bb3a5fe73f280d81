-- A throw-away sketch, not lock-core's: the release of a semaphore in "layout 2" (see sem2-acquire.lua).
-- KEYS[1] the semaphore's hash, KEYS[2] this holder's released mark (a string = hold id, kept for the retry window).
-- Returns 1 when given back, 0 for a retried release, -2 when the lease had run out or the hold is not this one's.
local OWNER_TOKEN, HOLD_ID, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND, MESSAGE = unpack(ARGV)
local s = redis.call('HMGET', KEYS[1], 'layout', 'count', 'waiting', OWNER_TOKEN)
if s[1] and s[1] ~= '2' then
  return redis.error_reply('DISTLOCK_LAYOUT ' .. s[1] .. ' 2')
end
if not s[4] then
  return redis.call('GET', KEYS[2]) == HOLD_ID and 0 or -2
end
local leaseEnd, permits, _, hold = string.match(s[4], '^(%d+) (%d+) (%d+) (%d+)')
local now = redis.call('TIME')
if tonumber(leaseEnd) <= now[1] * 1000 + math.floor(now[2] / 1000) or hold ~= HOLD_ID then
  return -2
end
if s[3] then
  redis.call('HDEL', KEYS[1], OWNER_TOKEN, 'waiting')
else
  redis.call('HDEL', KEYS[1], OWNER_TOKEN)
end
redis.call('HSET', KEYS[1], 'count', s[2] - permits)
redis.call('SET', KEYS[2], HOLD_ID, 'PX', TOKEN_RETENTION_MILLIS)
if s[3] then
  redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE .. ' ' .. permits)
end
return 1
