-- Releases one hold of an exclusive lock, and frees the lock when it was the owner's last hold.
-- KEYS[1]  the lock hash (see acquire.lua)
-- ARGV[1]  owner token
-- ARGV[2]  hold id
-- ARGV[3]  release channel
-- ARGV[4]  release message: the releasing client's id
-- ARGV[5]  how long to keep the last fencing token once the lock is free, in milliseconds
-- ARGV[6]  0 to free the lock now; otherwise keep it held, unrenewed, for this many more milliseconds (see
--          delayed-release.lua)
-- ARGV[7]  the publish command: PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster
-- ARGV[8]  the fencing token of the owner's grant
-- ARGV[9]  '1' when the watchdog renews this hold, '0' for a fixed lease
-- ARGV[10] '1' to publish the release only when a waiting caller was refused since the last one ('waiting', set by
--          acquire.lua): other processes' waiters always were; this process wakes its own without a message
-- Returns 1 when the lock was freed (or left to expire), 2 when other holds of the owner remain, 0 when this hold was
-- released before (a retried call), -1 when another owner holds the lock, -2 when nobody holds it (the lease ran out).
--#include acl-guard.lua (defines refusedGrant)
local refused = refusedGrant('HDEL', KEYS[1], 'HINCRBY', KEYS[1], 'HGET', KEYS[1], 'HGETALL', KEYS[1],
  'PEXPIREAT', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1])
if refused then
  return refused
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease)
--#include delayed-release.lua (defines heldFor, keepReleased)
local state = redis.call('HMGET', KEYS[1], 'owner', 'released', 'chain', 'fence', 'holds', ARGV[2], 'waiting')
if state[1] ~= ARGV[1] then
  return notOwnerReply(state, ARGV[1], tonumber(ARGV[8])) -- 0 for a retried call whose first run freed the lock
end
if not state[6] then
  return 0
end
if state[5] ~= '1' then
  redis.call('HDEL', KEYS[1], ARGV[2])
  redis.call('HINCRBY', KEYS[1], 'holds', -1)
  keepLongestLease(KEYS[1], ARGV[9] == '1')
  return 2
end
if tonumber(ARGV[6]) > 0 then
  -- Nobody, this owner included, acquires it before the delay ends, and no renewal extends it: the owner field no
  -- longer names a token. Waiters re-check when the delay ends (see delayed-release.lua).
  redis.call('HDEL', KEYS[1], ARGV[2])
  keepReleased(KEYS[1], ARGV[1], ARGV[6], ARGV[5], 'holds', 0)
  return 1
end
-- The owner's last hold: one HDEL of its hold id and the owner's fields.
local publish = state[7] or ARGV[10] ~= '1'
refused = publish and refusedGrant(ARGV[7], ARGV[3]) -- a release that would publish checks the channel first
if refused then
  return refused
end
redis.call('HDEL', KEYS[1], ARGV[2], 'owner', 'holds', 'watched', 'waiting')
redis.call('HSET', KEYS[1], 'released', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
if publish then
  redis.call(ARGV[7], ARGV[3], ARGV[4])
end
return 1
