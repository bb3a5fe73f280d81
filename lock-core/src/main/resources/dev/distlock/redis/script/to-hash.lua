--#include single-hold.lua (defines singleHold)
-- The single-hold layout's string turned into the hash (see single-hold.lua).
-- toHash(key, value): value is the key's string. Returns NOPERM's error reply when the ACL guard refuses (nothing
-- written), else nil.
local function toHash(key, value)
  local refused = refusedGrant and refusedGrant('DEL', key, 'HSET', key, 'PEXPIRE', key)
  if refused then
    return refused
  end
  local expiry = redis.call('PTTL', key)
  local owner, holdId, fence, chain, waiting = singleHold(value)
  redis.call('DEL', key)
  if owner then
    redis.call('HSET', key, 'owner', owner, 'holds', '1', owner, '1', holdId, 'w', 'fence', fence, 'chain', chain)
    if waiting then
      redis.call('HSET', key, 'waiting', '1')
    end
  else
    redis.call('HSET', key, 'fence', fence, 'chain', chain)
  end
  if expiry > 0 then
    redis.call('PEXPIRE', key, expiry)
  end
  return nil
end
