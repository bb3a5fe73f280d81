-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua): one HGET of the field named by the owner token, which counts the owner's
-- renewed holds (see add-hold.lua) and exists only while that owner holds the lock.
-- KEYS[i]  a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the owner token expected for KEYS[i] is ARGV[i + 1]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner, and 2 when it is held but no open
-- hold is renewed (the owner's renewed holds were released, or the lock is kept until a delay ends).
--#arguments
--#include extend-lease.lua (defines extendLease)
local renewed = {}
for i, key in ipairs(KEYS) do
  local watched = redis.call('HGET', key, ARGV[i + 1])
  if not watched then
    renewed[i] = 0
  elseif watched == '0' then
    renewed[i] = 2
  else
    extendLease(key, LEASE_MILLIS) -- never shortens a longer fixed lease of a re-entry
    renewed[i] = 1
  end
end
return renewed
