-- An owner's hash (the lock hash, or a reader's hash) keeps one field per open hold id, with its lease end in Redis ms
-- or 'w' when the watchdog renews it; 'holds' counts the open holds and 'watched' those the watchdog renews.
-- Records hold id holdId with holdLease, once: a retried call never counts twice.
local function addHold(hash, holdId, holdLease, watched)
  if redis.call('HSETNX', hash, holdId, holdLease) == 1 then
    redis.call('HINCRBY', hash, 'holds', 1)
    if watched then
      redis.call('HINCRBY', hash, 'watched', 1)
    end
  end
end
