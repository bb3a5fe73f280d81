-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua). In the single-hold layout (see single-hold.lua) one GET: the string names
-- the owner, and its one hold is renewed. In the hash, one HEXISTS of the field named by the owner token, which counts
-- the owner's renewed holds (see add-hold.lua) and exists only while that owner holds the lock with one or more.
-- Each form answers the other's command with WRONGTYPE, an error that costs Redis more than a command: a call reads
-- the form its keys most likely have first.
-- KEYS[i]  a lock (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2]     SINGLE_HOLD_LAYOUT  '1' when the keys are most likely strings (one watched hold each); '0' for hashes
-- ARGV[3...]  OWNER_TOKEN         the owner token expected for KEYS[i] is ARGV[i + 2]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner (a delayed release included: its
-- owner field names no token), and 2 when it is held but no open hold is renewed (only fixed-lease holds remain).
--#arguments
--#include extend-lease.lua (defines extendLease)
local renewed = {}
local stringsFirst = SINGLE_HOLD_LAYOUT == '1'
for i = 1, #KEYS do
  local key, owner = KEYS[i], ARGV[i + 2]
  local value = stringsFirst and redis.pcall('GET', key) -- false for no key (or not read), a table for a hash
  local watched
  if not stringsFirst or type(value) == 'table' then
    watched = redis.pcall('HEXISTS', key, owner) -- a table for a string
    if type(watched) == 'table' then
      value = redis.call('GET', key)
    end
  end
  if watched == 1 then
    extendLease(key, LEASE_MILLIS) -- never shortens a longer fixed lease of a re-entry
    renewed[i] = 1
  elseif watched == 0 then
    renewed[i] = (redis.call('HGET', key, 'owner') == owner) and 2 or 0
  elseif value and string.find(value, owner, 1, true) == 1 and string.byte(value, #owner + 1) == 32 then
    -- the owner's one watched hold: its lease is the watchdog's own, with nothing longer to keep
    redis.call('PEXPIRE', key, LEASE_MILLIS)
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
