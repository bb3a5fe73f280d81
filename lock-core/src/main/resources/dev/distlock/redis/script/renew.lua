-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua): one HEXISTS of the field named by the owner token, which counts the
-- owner's renewed holds (see add-hold.lua) and exists only while that owner holds the lock with one or more of them,
-- then one expiry command: two commands per renewed lock, as Redisson's renewal runs.
-- On Redis 7 that command is PEXPIREAT ... GT to a deadline read once per call (the Redis clock + LEASE_MILLIS): GT
-- never shortens a longer fixed lease of a re-entry, and an absolute time spares Redis the rewrite of each PEXPIRE
-- into PEXPIREAT (about 1k instructions per lock, more than the call's one TIME over a batch). A key with no expiry
-- (which no script leaves) gets one with NX. Before Redis 7, extendLease (see extend-lease.lua).
-- KEYS[i]  a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the owner token expected for KEYS[i] is ARGV[i + 1]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner (a delayed release included: its
-- owner field names no token; a key overwritten with another type behind the lock's back included: see
-- wrong-type.lua), and 2 when it is held but no open hold is renewed (only fixed-lease holds remain).
--#arguments
--#include extend-lease.lua (defines extendLease)
--#include wrong-type.lua (defines wrongTypeAsNil)
local deadline -- Redis 7: the lease's end, Redis ms as text; nil before Redis 7
if redis.REDIS_VERSION_NUM then
  local now = redis.call('TIME')
  deadline = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(LEASE_MILLIS))
end
local renewed = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  local watched = redis.pcall('HEXISTS', key, ARGV[i + 1])
  if type(watched) == 'table' then -- an error reply only: the guard's call costs every lock about 2% otherwise
    watched = wrongTypeAsNil(watched)
  end
  if watched == 1 then
    if not deadline then
      extendLease(key, LEASE_MILLIS)
    elseif redis.call('PEXPIREAT', key, deadline, 'GT') == 0 then
      redis.call('PEXPIREAT', key, deadline, 'NX')
    end
    renewed[i] = 1
  elseif watched == 0 and redis.call('HGET', key, 'owner') == ARGV[i + 1] then
    renewed[i] = 2
  else
    renewed[i] = 0
  end
end
return renewed
