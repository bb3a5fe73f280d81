-- Releases one hold of an exclusive lock, and frees the lock when it was the owner's last hold.
-- KEYS[1]  the lock hash (see acquire.lua)
-- ARGV[1]  owner token
-- ARGV[2]  hold id
-- ARGV[3]  release channel
-- ARGV[4]  release message: the releasing client's id
-- ARGV[5]  how long to keep the last fencing token once the lock is free, in milliseconds
-- ARGV[6]  0 to free the lock now; otherwise keep it held, unrenewed, for this many more milliseconds
-- ARGV[7]  the publish command: PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster
-- Returns 1 when the lock was freed (or left to expire), 2 when other holds of the owner remain, 0 when this hold was released before
-- (a retried call), -1 when another owner holds the lock, -2 when nobody holds it (the lease ran out).
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner ~= ARGV[1] then
  if redis.call('HGET', KEYS[1], 'released') == ARGV[1] then
    return 0
  end
  if owner then
    return -1
  end
  return -2
end
if redis.call('HDEL', KEYS[1], ARGV[2]) == 0 then
  return 0
end
if redis.call('HINCRBY', KEYS[1], 'holds', -1) > 0 then
  return 2
end
if tonumber(ARGV[6]) > 0 then
  -- Nobody, this owner included, acquires it before the delay ends; waiters re-check at the expiry.
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  return 1
end
redis.call('HDEL', KEYS[1], 'owner', 'holds')
redis.call('HSET', KEYS[1], 'released', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call(ARGV[7], ARGV[3], ARGV[4])
return 1
