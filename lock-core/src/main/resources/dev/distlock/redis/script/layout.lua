-- The layout version (docs/data-layout.md, "Layout version"). This code reads and writes layout 1, which writes no
-- version: a hash without a 'layout' field is layout 1. A later layout writes 'layout' = its number into each hash
-- that a grant of layout 1 reads first (the lock hash of an exclusive, fair or write lock, a semaphore's permits), so a
-- grant here that finds one returns otherLayout(found) before any write: it never grants over data it does not know.
-- The reply names both layouts: 'DISTLOCK_LAYOUT <found> 1' (read by the Java side, dev.distlock.redis.LayoutRefusal).
local function otherLayout(found)
  return redis.error_reply('DISTLOCK_LAYOUT ' .. found .. ' 1')
end
