-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it.
-- KEYS[i]    a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner token expected for KEYS[i]
-- Returns, per key, 1 when renewed and 0 when the lock is no longer held by that owner.
local renewed = {}
for i, key in ipairs(KEYS) do
  if redis.call('HGET', key, 'owner') == ARGV[i + 1] then
    redis.call('PEXPIRE', key, ARGV[1])
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
