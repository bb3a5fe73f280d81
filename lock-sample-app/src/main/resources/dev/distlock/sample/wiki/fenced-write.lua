-- Writes a page only if the writer's fencing token is not older than the newest one the page has seen.
-- KEYS[1]  the page body; KEYS[2]  the highest fencing token accepted for the page
-- ARGV[1]  the new body;  ARGV[2]  the writer's fencing token
-- Returns 1 when written, or -(the highest token seen) when the token is stale.
local seen = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) < seen then
  return -seen
end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[1], ARGV[1])
return 1
