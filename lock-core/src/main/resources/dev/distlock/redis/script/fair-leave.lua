-- A waiter of a fair lock gives up: leaves the queue, and wakes the next waiter if it was first and the lock is free.
-- KEYS[1]  the lock hash (see acquire.lua); KEYS[2] the queue and KEYS[3] the places (see fair-acquire.lua)
-- The arguments (see ScriptArgument):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  CHANNEL
-- ARGV[3]  PUBLISH_COMMAND  (see release.lua)
-- Returns 1 when the waiter was queued, 0 otherwise.
--#arguments
local rank = redis.call('ZRANK', KEYS[2], OWNER_TOKEN)
redis.call('ZREM', KEYS[2], OWNER_TOKEN)
redis.call('ZREM', KEYS[3], OWNER_TOKEN)
if not rank then
  return 0
end
if rank == 0 and not redis.call('HGET', KEYS[1], 'owner') then
  local following = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if following then
    redis.call(PUBLISH_COMMAND, CHANNEL, following)
  end
end
return 1
