-- The freed mark: the evidence a retried release recognises its own first run by once the lock's key is gone (a later
-- grant's lease lapsed, or the remaining holds of the owner ran out, taking the key and the run of grants in it).
-- Key:     a string of its own per lock, its key + ':freed' (<prefix>:{key}:lock:freed, fair:lock:freed,
--          rw:write:freed).
-- Value:   the acquisitions whose release ended a hold of the lock, newest first, at most 8:
--          '<owner token> <hold id>,<owner token> <hold id>,...' (tokens and hold ids hold neither ' ' nor ','; hold
--          ids are never reused, so an entry names one acquisition).
-- Written: by every release that ends a hold with the lock's key in Redis: the owner's last hold freed (release.lua,
--          fair-release.lua, now or with a delay) or handed off (handoff.lua), and one of several holds of the owner
--          (whose remaining holds' lease may end before the retry comes). A retried call that finds its hold already
--          gone writes nothing.
-- Expiry:  each write sets the token retention (a delayed release: the delay, if longer), the retry window: an entry
--          lasts at least that long after its release, unless 8 later ones pushed it out first.
-- Cost:    one GET and one SET per release that ends a hold, and about 40 bytes per entry (a 32-character owner
--          token, the hold id, two separators): about 300 bytes once 8 acquisitions released the lock within one
--          retention. A retry whose entry was pushed out (8 other releases of the lock between its first try and the
--          retry, and its key lost meanwhile) reports its lease lost: a false loss report, never a silent one.
-- Both functions read the mark with GET, before the script's first write (a read needs no ACL check there, see
-- acl-guard.lua).
-- freedMark(mark, ownerToken, holdId): the mark's new value, this acquisition's entry first; the caller SETs it.
local function freedMark(mark, ownerToken, holdId)
  local entry, entries = ownerToken .. ' ' .. holdId, redis.call('GET', mark)
  if not entries then
    return entry
  end
  local cut = 0
  for _ = 1, 7 do -- the 7 newest entries stay
    cut = string.find(entries, ',', cut + 1, true)
    if not cut then
      return entry .. ',' .. entries
    end
  end
  return entry .. ',' .. string.sub(entries, 1, cut - 1)
end
-- freedBefore(mark, ownerToken, holdId): whether the mark names this acquisition (a retried call's first run ended it).
local function freedBefore(mark, ownerToken, holdId)
  local entries = redis.call('GET', mark)
  return entries ~= false and string.find(',' .. entries .. ',', ',' .. ownerToken .. ' ' .. holdId .. ',', 1, true)
    ~= nil
end
