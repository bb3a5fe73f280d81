-- The plain lock's single-hold layout: while one owner holds the lock with one hold the watchdog renews (a lock
-- cycle's case), or nobody holds it and only its last fencing token is kept, the lock key is a string rather than
-- acquire.lua's hash, so that a cycle runs GET and SET ... PX on each side instead of six commands on a hash of five
-- or six fields:
--   held  '<owner token> <hold id> <fence> <chain>', then ' w' once a waiting caller was refused (the hash's 'waiting')
--   free  '<fence> <chain>': what the hash keeps once its owner released it (see release.lua)
-- Owner tokens, hold ids and tokens hold no space, and an owner token (32 characters) is longer than any fencing token
-- (16 digits at most), so a free lock's string never begins with one. Every other state (more holds, a fixed lease, a delayed release)
-- is the hash: a script that needs one converts the string first (toHash), which changes no lock state, only its
-- form, and keeps the key's expiry (see to-hash.lua). A free hash turns back into the string at the next watched grant
-- (acquire.lua) or watched hand-off (handoff.lua); see docs/data-layout.md, "Which form, when".
-- singleHold(value): the string's parts: owner token, hold id, fence, chain (the first two nil when free), and whether
-- a waiting caller was refused.
local function singleHold(value)
  local first = string.find(value, ' ', 1, true)
  local second = string.find(value, ' ', first + 1, true)
  if not second then
    return nil, nil, string.sub(value, 1, first - 1), string.sub(value, first + 1), false
  end
  local third = string.find(value, ' ', second + 1, true)
  local fourth = string.find(value, ' ', third + 1, true)
  return string.sub(value, 1, first - 1), string.sub(value, first + 1, second - 1),
    string.sub(value, second + 1, third - 1), string.sub(value, third + 1, fourth and fourth - 1), fourth ~= nil
end
