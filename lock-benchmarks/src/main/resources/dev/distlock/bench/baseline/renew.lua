-- ScriptCost's baseline: lock-core's renew.lua as of commit 505b3d1, with its includes and argument names, as sent.
-- Extends the leases of a batch of exclusive locks, each only if its owner still holds it and one of the owner's open
-- holds asked for renewal (see acquire.lua).
-- KEYS[i]  a lock hash (see acquire.lua); all keys of one call live in one Redis Cluster slot
-- The arguments (see ScriptArgument):
-- ARGV[1]     LEASE_MILLIS
-- ARGV[2...]  OWNER_TOKEN  the owner token expected for KEYS[i] is ARGV[i + 1]
-- Returns, per key, 1 when renewed, 0 when the lock is no longer held by that owner, and 2 when it is held but no open
-- hold is renewed (the owner's renewed holds were released, or the lock is kept until a delay ends).
local LEASE_MILLIS = ARGV[1]
-- extendLease(key, lease): lets key live at least lease ms from now, never shortening a longer expiry (a re-entry or
-- a renewal never cuts a longer fixed lease short). Redis 7: PEXPIRE GT, one command when the key already expires
-- (a renewal); GT treats a key with no expiry as never expiring and sets nothing, so a key just created (a first
-- reader's set, a fair waiter's queue) then gets its expiry from PEXPIRE NX. Before Redis 7, PTTL first.
-- Under the ACL guard (Redis 7 only) it runs PEXPIRE alone.
local function extendLease(key, lease)
  if redis.REDIS_VERSION_NUM then
    if redis.call('PEXPIRE', key, lease, 'GT') == 0 then
      redis.call('PEXPIRE', key, lease, 'NX')
    end
  elseif redis.call('PTTL', key) < lease then
    redis.call('PEXPIRE', key, lease)
  end
end
local lease = tonumber(LEASE_MILLIS)
local renewed = {}
for i, key in ipairs(KEYS) do
  local state = redis.call('HMGET', key, 'owner', 'watched')
  if state[1] ~= ARGV[i + 1] then
    renewed[i] = 0
  elseif state[2] == '0' then
    renewed[i] = 2
  else
    extendLease(key, lease) -- never shortens a longer fixed lease of a re-entry
    renewed[i] = 1
  end
end
return renewed
