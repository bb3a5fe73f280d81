-- ScriptCost's baseline: lock-core's renew.lua as of commit e446f6b (before issue 30's cuts), with its includes, as sent.
-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua).
-- KEYS[i]    a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner token expected for KEYS[i]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner, and 2 when it is held but no open
-- hold is renewed (the owner's renewed holds were released, or the lock is kept until a delay ends).
local lease = tonumber(ARGV[1])
local renewed = {}
for i, key in ipairs(KEYS) do
  local state = redis.call('HMGET', key, 'owner', 'watched')
  if state[1] ~= ARGV[i + 1] then
    renewed[i] = 0
  elseif state[2] == '0' then
    renewed[i] = 2
  else
    if redis.call('PTTL', key) < lease then -- never shortens a longer fixed lease of a re-entry
      redis.call('PEXPIRE', key, lease)
    end
    renewed[i] = 1
  end
end
return renewed
