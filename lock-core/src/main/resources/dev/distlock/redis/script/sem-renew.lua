-- Extends the leases of a batch of semaphore holders, each only if it still holds its permits.
-- KEYS[3i-2], KEYS[3i-1], KEYS[3i]  the leases, the permits and the holder's hash of holder i (see sem-acquire.lua);
--          one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the token of holder i is ARGV[i + 1]
-- Returns, per holder, 1 when renewed, 0 when its lease had run out or its entry was deleted (or one of its keys is
-- of another type, overwritten behind its back; see wrong-type.lua), and 2 when it holds but no open hold of it is
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
local kept = {} -- the semaphores whose leases and permits keys this batch extended already (to one end, now + lease)
for i = 1, #KEYS / 3 do
  local leases, permits, holder, token = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i], ARGV[i + 1]
  local leaseEnd = tonumber(wrongTypeAsNil(redis.pcall('ZSCORE', leases, token)) or 0)
  local state = wrongTypeAsNil(redis.pcall('HMGET', holder, 'holds', 'watched')) or {}
  if leaseEnd > nowMillis and state[1] and state[2] == '0' then
    renewed[i] = 2 -- holding, but no open hold is renewed (see renew.lua)
  elseif leaseEnd > nowMillis and state[1] then
    if leaseEnd < startMillis + lease then -- never shortens a longer fixed lease of a retried call
      redis.call('ZADD', leases, string.format('%d', startMillis + lease), token)
    end
    extendLease(holder, lease)
    if not kept[leases] then
      extendLease(leases, lease)
      extendLease(permits, lease)
      kept[leases] = true
    end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
