-- Extends the leases of a batch of readers, each only if it still reads.
-- KEYS[2i-1], KEYS[2i]  the readers and the reader's hash of reader i (see read-acquire.lua); one Redis Cluster slot
-- ARGV[1]    lease in milliseconds
-- ARGV[i+1]  the owner token of reader i
-- Returns, per reader, 1 when renewed and 0 when its lease had run out or its entry was deleted.
local now = redis.call('TIME')
local nowMillis = now[1] * 1000 + math.floor(now[2] / 1000)
local lease = tonumber(ARGV[1])
local renewed = {}
for i = 1, #KEYS / 2 do
  local readers, reader, token = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
  local leaseEnd = tonumber(redis.call('ZSCORE', readers, token) or 0)
  if leaseEnd > nowMillis and redis.call('HEXISTS', reader, 'holds') == 1 then
    redis.call('ZADD', readers, string.format('%d', nowMillis + lease), token)
    redis.call('PEXPIRE', reader, lease)
    if redis.call('PTTL', readers) < lease then
      redis.call('PEXPIRE', readers, lease)
    end
    renewed[i] = 1
  else
    renewed[i] = 0
  end
end
return renewed
