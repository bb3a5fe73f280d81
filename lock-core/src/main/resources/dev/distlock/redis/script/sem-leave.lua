-- A waiter of a fair semaphore gives up: leaves the queue, and wakes the next waiter if it was first.
-- KEYS[1]  the queue and KEYS[2] the places (see sem-acquire.lua)
-- ARGV[1]  holder token; ARGV[2] release channel; ARGV[3] the publish command (see release.lua)
-- Returns 1 when the waiter was first in the queue (the others should check again), 0 otherwise.
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if rank ~= 0 then
  return 0
end
if redis.call('ZCARD', KEYS[1]) > 0 then
  redis.call(ARGV[3], ARGV[2], 'next')
end
return 1
