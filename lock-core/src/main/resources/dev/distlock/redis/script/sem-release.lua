-- Releases one hold of a semaphore's permits; the holder's last hold gives its permits back and wakes the waiters.
-- KEYS[1]  the leases and KEYS[2] the permits (see sem-count.lua)
-- KEYS[3]  this holder's hash (see sem-acquire.lua); once released it keeps only 'released' for a while
-- KEYS[4]  the queue of a fair semaphore (see sem-acquire.lua)
-- The arguments (see ScriptArgument; the first eight as in release.lua):
-- ARGV[1]  OWNER_TOKEN             the holder token
-- ARGV[2]  HOLD_ID
-- ARGV[3]  FENCING_TOKEN           (unused: a holder's hash recognises a retried call by its 'released' mark)
-- ARGV[4]  WATCHDOG
-- ARGV[5]  KEEP_HELD_MILLIS        0 to give the permits back now; otherwise keep them, unrenewed, for this many more ms
-- ARGV[6]  TOKEN_RETENTION_MILLIS  how long a released holder's hash stays to recognise a retried call
-- ARGV[7]  CHANNEL
-- ARGV[8]  PUBLISH_COMMAND
-- ARGV[9]  MESSAGE
-- Returns 1 when the permits were given back (or left to expire), 2 when other holds of the holder remain, 0 when
-- this hold was released before (a retried call), -2 when the holder's lease had run out.
-- The release publishes only when a waiting caller was refused since the last message, or a fair queue waits: the
-- message is MESSAGE, a space and the permits freed.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
--#include end-hold.lua (defines notOwnerReply, keepLongestLease, keepReleased)
--#include lease-end.lua (defines endsFrom)
--#include sem-count.lua (defines countRefused, countLive, keepUntil)
local state = redis.call('HMGET', KEYS[3], 'released', HOLD_ID, 'holds')
-- A retried call: this token was released before ('released'), and this hold is not one of its open ones.
if state[1] and not state[2] then
  return 0
end
local permitsState = redis.call('HMGET', KEYS[2], 'count', 'layout', 'waiting', OWNER_TOKEN)
if permitsState[2] then
  --#include layout.lua (defines otherLayout)
  return otherLayout(permitsState[2])
end
-- The holder's hash lives exactly as long as its lease (both set from one clock reading by every script), so an open
-- hold in it means a live lease, and the last hold's release needs neither the clock nor a look at other holders:
-- those whose lease ran out are dropped by the next acquire try (sem-count.lua), and counted until then.
if not (state[2] and tonumber(state[3] or 0) <= 1 and KEEP_HELD_MILLIS == '0') then
  local keepHeld = tonumber(KEEP_HELD_MILLIS)
  local now = redis.call('TIME')
  local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
  if tonumber(redis.call('ZSCORE', KEYS[1], OWNER_TOKEN) or 0) <= nowMillis then
    return -2 -- the lease ran out, or the entry was deleted
  end
  if not state[2] then
    return 0
  end
  if tonumber(state[3] or 0) > 1 then
    local refused = refusedGrant and refusedGrant('HDEL', KEYS[3], 'HINCRBY', KEYS[3], 'HGET', KEYS[3],
      'HGETALL', KEYS[3], 'PEXPIREAT', KEYS[3], 'ZADD', KEYS[1])
    if refused then
      return refused
    end
    redis.call('HDEL', KEYS[3], HOLD_ID)
    redis.call('HINCRBY', KEYS[3], 'holds', -1)
    local leaseEnd = keepLongestLease(KEYS[3], 'watched', WATCHDOG == '1') -- the holder keeps its longest open lease
    if leaseEnd > 0 then
      redis.call('ZADD', KEYS[1], string.format('%d', leaseEnd), OWNER_TOKEN)
    end
    return 2
  end
  -- The holder's last hold, released with a delay: its hash is replaced by the 'released' mark.
  local refused = refusedGrant and refusedGrant('DEL', KEYS[3], 'HSET', KEYS[3], 'PEXPIRE', KEYS[3],
    'ZADD', KEYS[1], 'PTTL', KEYS[1], 'PEXPIRE', KEYS[1], 'PTTL', KEYS[2], 'PEXPIRE', KEYS[2])
  if refused then
    return refused
  end
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[3], 'released', 1)
  redis.call('PEXPIRE', KEYS[3], math.max(tonumber(TOKEN_RETENTION_MILLIS), keepHeld))
  -- The permits stay counted until the delay ends; waiters re-check then (the earliest lease end).
  redis.call('ZADD', KEYS[1], string.format('%d', endsFrom(now) + keepHeld), OWNER_TOKEN)
  keepUntil(KEYS[1], KEYS[2], keepHeld)
  return 1
end
-- The holder's last hold: its hash is replaced by the 'released' mark, its permits given back.
local publish = permitsState[3] or redis.call('EXISTS', KEYS[4]) == 1
local permits = permitsState[4] or '0'
local left = tonumber(permitsState[1] or 0) - tonumber(permits)
-- A release that publishes checks the channel before the writes too.
local refused = refusedGrant and refusedGrant('ZREM', KEYS[1], 'DEL', KEYS[3], 'HSET', KEYS[3], 'PEXPIRE', KEYS[3],
  'DEL', KEYS[2], 'HDEL', KEYS[2], 'HSET', KEYS[2]) or (publish and refusedGrant and refusedGrant(PUBLISH_COMMAND,
  CHANNEL))
if refused then
  return refused
end
if redis.call('ZREM', KEYS[1], OWNER_TOKEN) == 0 then
  return -2 -- dropped by an acquire try the very ms its lease ended, or deleted: nothing written
end
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[3], 'released', '1') -- text: Redis 7.0 formats a number argument anew (see sem-acquire.lua)
redis.call('PEXPIRE', KEYS[3], TOKEN_RETENTION_MILLIS)
if left <= 0 then
  redis.call('DEL', KEYS[2]) -- no permit is counted any more: nothing is left to count
else
  redis.call('HDEL', KEYS[2], OWNER_TOKEN, 'waiting')
  redis.call('HSET', KEYS[2], 'count', left) -- 'count' kept the hash and its expiry
end
if publish then
  -- '<client id> <permits freed>': that many waiters wake (a receiver of layout 1 wakes all of its own)
  redis.call(PUBLISH_COMMAND, CHANNEL, MESSAGE .. ' ' .. permits)
end
return 1
