-- A waiter of a fair semaphore gives up: leaves the queue, and wakes the next waiter if it was first.
-- KEYS[1]  the queue and KEYS[2] the places (see sem-acquire.lua)
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN      the holder token
-- ARGV[2]  CHANNEL
-- ARGV[3]  PUBLISH_COMMAND  (see release.lua)
-- Returns 1 when the waiter was first in the queue (the others should check again), 0 otherwise.
--#arguments
local rank = redis.call('ZRANK', KEYS[1], OWNER_TOKEN)
redis.call('ZREM', KEYS[1], OWNER_TOKEN)
redis.call('ZREM', KEYS[2], OWNER_TOKEN)
if rank ~= 0 then
  return 0
end
if redis.call('ZCARD', KEYS[1]) > 0 then
  redis.call(PUBLISH_COMMAND, CHANNEL, 'next')
end
return 1
