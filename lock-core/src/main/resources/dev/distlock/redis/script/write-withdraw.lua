-- A waiting writer gives up: drops its intent, so that the readers it held back may go.
-- KEYS[1]  the write intent (see read-acquire.lua)
-- KEYS[2]  the writer's hash (see write-acquire.lua)
-- ARGV[1]  owner token; ARGV[2] release channel; ARGV[3] release message
-- ARGV[4]  the publish command (see release.lua)
-- Returns 1 when the intent was this writer's and is gone, 0 otherwise.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
if not redis.call('HGET', KEYS[2], 'owner') then
  redis.call(ARGV[4], ARGV[2], ARGV[3])
end
return 1
