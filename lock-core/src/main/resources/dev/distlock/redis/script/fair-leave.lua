-- A waiter of a fair lock gives up: leaves the queue, and wakes the next waiter if it was first and the lock is free.
-- KEYS[1]  the lock hash (see acquire.lua); KEYS[2] the queue and KEYS[3] the places (see fair-acquire.lua)
-- ARGV[1]  owner token; ARGV[2] release channel; ARGV[3] the publish command (see release.lua)
-- Returns 1 when the waiter was queued, 0 otherwise.
local rank = redis.call('ZRANK', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if not rank then
  return 0
end
if rank == 0 and not redis.call('HGET', KEYS[1], 'owner') then
  local following = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
  if following then
    redis.call(ARGV[3], ARGV[2], following)
  end
end
return 1
