--#include add-hold.lua (defines addHold)
--#include extend-lease.lua (defines extendLease)
-- The owner (ownerToken) of a lock hash (acquire.lua's layout) takes one more hold: recorded once (a retried call never
-- counts twice), its lease end ('w' for the watchdog's) in its field, and the hash's lease (leaseMillis, the argument's
-- text) extended, never shortened. now: a TIME reply, or nil to read the clock only for a fixed lease. Returns NOPERM's
-- error reply when the ACL guard refuses (nothing written), else nil.
local function reenter(hash, ownerToken, holdId, leaseMillis, watched, now)
  local refused = refusedGrant and refusedGrant('HSETNX', hash, 'HINCRBY', hash, 'PEXPIRE', hash)
  if refused then
    return refused
  end
  local holdLease = 'w'
  if not watched then
    now = now or redis.call('TIME')
    holdLease = string.format('%d', now[1] * 1000 + math.floor(now[2] / 1000) + tonumber(leaseMillis))
  end
  addHold(hash, holdId, holdLease, watched and ownerToken)
  extendLease(hash, leaseMillis)
  return nil
end
