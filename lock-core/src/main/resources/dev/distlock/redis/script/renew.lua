-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua): one HEXISTS of the field named by the owner token, which counts the
-- owner's renewed holds (see add-hold.lua) and exists only while that owner holds the lock with one or more of them,
-- then one PEXPIRE ... GT (see extend-lease.lua): a renewed lock costs two commands, as Redisson's renewal does.
-- KEYS[i]  a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the owner token expected for KEYS[i] is ARGV[i + 1]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner (a delayed release included: its
-- owner field names no token), and 2 when it is held but no open hold is renewed (only fixed-lease holds remain).
--#arguments
--#include extend-lease.lua (defines extendLease)
local renewed = {}
for i = 1, #KEYS do
  local key = KEYS[i]
  if redis.call('HEXISTS', key, ARGV[i + 1]) == 1 then
    extendLease(key, LEASE_MILLIS) -- never shortens a longer fixed lease of a re-entry
    renewed[i] = 1
  elseif redis.call('HGET', key, 'owner') == ARGV[i + 1] then
    renewed[i] = 2
  else
    renewed[i] = 0
  end
end
return renewed
