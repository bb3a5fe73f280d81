-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua). In the single-hold layout (see single-hold.lua) one GET: the string names
-- the owner, and its one hold is renewed. In the hash, one HEXISTS of the field named by the owner token, which counts
-- the owner's renewed holds (see add-hold.lua) and exists only while that owner holds the lock with one or more.
-- KEYS[i]  a lock (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2]     SINGLE_HOLD_LAYOUT  '1' for plain locks, whose keys may be strings; '0' for locks that are always hashes
-- ARGV[3...]  OWNER_TOKEN         the owner token expected for KEYS[i] is ARGV[i + 2]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner (a delayed release included: its
-- owner field names no token), and 2 when it is held but no open hold is renewed (only fixed-lease holds remain).
--#arguments
--#include extend-lease.lua (defines extendLease)
local renewed = {}
local strings = SINGLE_HOLD_LAYOUT == '1'
for i = 1, #KEYS do
  local key, owner = KEYS[i], ARGV[i + 2]
  local value -- GET's reply: false for no key, a table for a hash (WRONGTYPE); nil when not read
  if strings then
    value = redis.pcall('GET', key)
  end
  if type(value) == 'string' then
    -- its lease is the watchdog's own: nothing longer to keep
    if string.sub(value, 1, #owner + 1) == owner .. ' ' and string.find(value, ' ', #owner + 2, true) then
      redis.call('PEXPIRE', key, LEASE_MILLIS)
      renewed[i] = 1
    else
      renewed[i] = 0
    end
  elseif value == false then
    renewed[i] = 0
  elseif redis.call('HEXISTS', key, owner) == 1 then
    extendLease(key, LEASE_MILLIS) -- never shortens a longer fixed lease of a re-entry
    renewed[i] = 1
  elseif redis.call('HGET', key, 'owner') == owner then
    renewed[i] = 2
  else
    renewed[i] = 0
  end
end
return renewed
