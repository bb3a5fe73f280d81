-- A service instance's record (docs/data-layout.md, "Instance record"): its fields written and its expiry set in one
-- step, so that an inspection never reads half a record and no record outlives its expiry, whenever the process dies.
-- Not on any lock's path, nor one of the lock's scripts (those are in script/): the service sends it with EVAL when it
-- starts locking, then only when its long holds change (InstanceRecord).
--
-- KEYS[1]  the record, <prefix>:instance:<instance id> (outside every lock's hash tag: a key of its own slot)
-- ARGV[1]  the record's expiry, ms
-- ARGV[2]  'whole': the record is replaced by the fields given; 'fields': the fields are added to the record as it
--          is, only if it is there
-- ARGV[3…] field, value, field, value …
-- Returns 1 when written, 0 when ARGV[2] is 'fields' and the record was gone (expired, Redis restarted or failed
-- over): the service then writes it whole.

local record = KEYS[1]
if ARGV[2] == 'whole' then
    redis.call('DEL', record)
elseif redis.call('EXISTS', record) == 0 then
    return 0
end
if #ARGV > 2 then
    redis.call('HSET', record, unpack(ARGV, 3))
end
redis.call('PEXPIRE', record, ARGV[1])
return 1
