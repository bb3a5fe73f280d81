-- The raw floor's cycle in one script, for scale: SET NX PX, then the compare-and-delete (GET, DEL).
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[3]) then
  return redis.error_reply('held')
end
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return redis.error_reply('not released')
end
return redis.call('DEL', KEYS[1])
