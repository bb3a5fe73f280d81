-- A fair lock's waiters (see fair-acquire.lua): the queue, scored by arrival, and the places, scored by when each
-- lapses unless refreshed. dropLapsed(queue, places, nowMillis) removes the waiters that stopped refreshing theirs.
local function dropLapsed(queue, places, nowMillis)
  for _, gone in ipairs(redis.call('ZRANGEBYSCORE', places, '-inf', nowMillis)) do
    redis.call('ZREM', queue, gone)
    redis.call('ZREM', places, gone)
  end
end
