-- Extends the leases of a batch of readers, each only if it still reads.
-- KEYS[2i-1], KEYS[2i]  the readers and the reader's hash of reader i (see read-acquire.lua); one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the owner token of reader i is ARGV[i + 1]
-- Returns, per reader, 1 when renewed, 0 when its lease had run out or its entry was deleted (or either key is of
-- another type, overwritten behind the lock's back; see wrong-type.lua), and 2 when it reads but no open hold of it is
-- renewed.
--#arguments
--#include extend-lease.lua (defines extendLease)
--#include wrong-type.lua (defines wrongTypeAsNil)
--#include lease-end.lua (defines endsFrom)
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local startMillis = endsFrom(now) -- the lease end written counts from here
local lease = tonumber(LEASE_MILLIS)
local renewed = {}
for i = 1, #KEYS / 2 do
  local readers, reader, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
  local score = wrongTypeAsNil(redis.pcall('ZSCORE', readers, token))
  local leaseEnd = tonumber(score or 0)
  local state = wrongTypeAsNil(redis.pcall('HMGET', reader, 'holds', 'watched')) or {}
  if leaseEnd > nowMillis and state[1] and state[2] == '0' then
    renewed[i] = 2 -- reading, but no open hold is renewed (see renew.lua)
  elseif leaseEnd > nowMillis and state[1] then
    if leaseEnd < startMillis + lease then -- never shortens a longer fixed lease of a re-entry
      redis.call('ZADD', readers, string.format('%d', startMillis + lease), token)
    end
    extendLease(reader, lease) -- the hash may live longer, for a 'released' mark (read-acquire.lua)
    extendLease(readers, lease)
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
