-- An owner's hash (the lock hash, or a reader's hash) keeps one field per open hold id, with its lease end in Redis ms
-- or 'w' when the watchdog renews it; 'holds' counts the open holds, and the watched field those the watchdog renews:
-- in a lock hash the field named by the owner token, there only while it counts one or more (so that renew.lua asks
-- HEXISTS alone: an integer reply, cheaper than a text one), in a holder's hash 'watched', always there.
-- Records hold id holdId with holdLease, once: a retried call never counts twice. watchedField: the watched field when
-- the watchdog renews this hold, nil for a fixed lease.
local function addHold(hash, holdId, holdLease, watchedField)
  if redis.call('HSETNX', hash, holdId, holdLease) == 1 then
    redis.call('HINCRBY', hash, 'holds', '1')
    if watchedField then
      redis.call('HINCRBY', hash, watchedField, '1')
    end
  end
end
