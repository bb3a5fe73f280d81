-- Releases one hold of an exclusive lock, and frees the lock when it was the owner's last hold.
-- KEYS[1]  the lock hash (see acquire.lua)
-- KEYS[2]  the freed mark (see freed-mark.lua): what a retried call recognises its first run by once the lock is gone
-- The arguments (see ScriptArgument; every release script takes the first eight at these positions):
-- ARGV[1]  OWNER_TOKEN
-- ARGV[2]  HOLD_ID
-- ARGV[3]  FENCING_TOKEN            the token of the owner's grant
-- ARGV[4]  WATCHDOG                 '1' when the watchdog renews this hold, '0' for a fixed lease
-- ARGV[5]  KEEP_HELD_MILLIS         '0' to free the lock now; otherwise keep it held, unrenewed, for this many more
--                                   milliseconds (see delayed-release.lua)
-- ARGV[6]  TOKEN_RETENTION_MILLIS   how long to keep the last fencing token once the lock is free
-- ARGV[7]  CHANNEL                  the release channel
-- ARGV[8]  PUBLISH_COMMAND          PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster
-- ARGV[9]  MESSAGE                  the release message: the releasing client's id
-- ARGV[10] PUBLISH_ONLY_TO_WAITERS  '1' to publish the release only when a waiting caller was refused since the
--                                   last one ('waiting', set by acquire.lua): other processes' waiters always were;
--                                   this process wakes its own without a message
-- Returns 1 when the lock was freed (or left to expire), 2 when other holds of the owner remain, 0 when this hold was
-- released before (a retried call), -1 when another owner holds the lock, -2 when nobody holds it (the lease ran out).
-- Every path that ends a hold adds it to the freed mark, the last hold's and any other (see freed-mark.lua).
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include freed-mark.lua (defines freedMark, freedBefore)
-- The common path first: the owner's last hold, freed now. One HDEL of its hold id and the owner's fields. The hash
-- keeps 'fence' and 'chain' for the token retention: with no owner, they mark this grant released (see
-- notOwnerReply). A release that would publish checks the channel before the writes too. What only the other paths
-- use is included after it, so that a lock cycle's release defines none of it.
local state = redis.call('HMGET', KEYS[1], 'owner', 'holds', HOLD_ID, 'waiting')
if state[1] == OWNER_TOKEN and state[3] and state[2] == '1' and KEEP_HELD_MILLIS == '0' then
  local publish = state[4] or PUBLISH_ONLY_TO_WAITERS ~= '1'
  local freed = freedMark(KEYS[2], OWNER_TOKEN, HOLD_ID)
  local refused
  if publish then
    refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'PEXPIRE', KEYS[1], 'SET', KEYS[2], PUBLISH_COMMAND,
      CHANNEL)
  else
    refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'PEXPIRE', KEYS[1], 'SET', KEYS[2])
  end
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID, 'owner', 'holds', OWNER_TOKEN, 'waiting')
  redis.call('PEXPIRE', KEYS[1], TOKEN_RETENTION_MILLIS)
  redis.call('SET', KEYS[2], freed, 'PX', TOKEN_RETENTION_MILLIS)
  if publish then
    redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE)
  end
  return 1
end
--#include end-hold.lua (defines notOwnerReply, keepLongestLease, keepReleased)
-- The retried-release evidence is read only when the owner is not this one.
if state[1] ~= OWNER_TOKEN then -- 0 for a retried call whose first run freed it (see notOwnerReply)
  local evidence = redis.call('HMGET', KEYS[1], 'released', 'chain', 'fence')
  return notOwnerReply({state[1], evidence[1], evidence[2], evidence[3]}, OWNER_TOKEN, tonumber(FENCING_TOKEN),
    KEYS[2], HOLD_ID)
end
if not state[3] then
  return 0
end
if state[2] ~= '1' then
  -- One of several holds: the others' lease, which the key keeps now, may end before a retry of this call comes, and
  -- take the key along: the freed mark keeps this hold's end.
  local freed = freedMark(KEYS[2], OWNER_TOKEN, HOLD_ID)
  local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'HINCRBY', KEYS[1], 'HGET', KEYS[1],
    'HGETALL', KEYS[1], 'PEXPIREAT', KEYS[1], 'SET', KEYS[2])
  if refused then
    return refused
  end
  redis.call('HDEL', KEYS[1], HOLD_ID)
  redis.call('HINCRBY', KEYS[1], 'holds', '-1')
  keepLongestLease(KEYS[1], OWNER_TOKEN, WATCHDOG == '1', true)
  redis.call('SET', KEYS[2], freed, 'PX', TOKEN_RETENTION_MILLIS)
  return 2
end
-- The owner's last hold, with a delay (KEEP_HELD_MILLIS > 0): nobody, this owner included, acquires it before the
-- delay ends, and no renewal extends it: the owner field no longer names a token. Waiters re-check when the delay ends
-- (see delayed-release.lua).
local freed = freedMark(KEYS[2], OWNER_TOKEN, HOLD_ID)
local refused = refusedGrant and refusedGrant('HDEL', KEYS[1], 'HSET', KEYS[1], 'PEXPIRE', KEYS[1], 'SET', KEYS[2])
if refused then
  return refused
end
redis.call('HDEL', KEYS[1], HOLD_ID, OWNER_TOKEN) -- the renewed holds' count: no renewal may extend the delay
keepReleased(KEYS[1], KEYS[2], freed, OWNER_TOKEN, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, 'holds', 0)
return 1
