-- The start-up check's first step (dev.distlock.redis.AccessCheck): whether the user may run every command the lock
-- scripts run on a lock's keys and publish on its channel, naming the first one refused. The scripts themselves check
-- only what a path runs from its first write on (see acl-guard.lua).
-- KEYS[1]  a probe lock's hash
-- ARGV[1]  CHANNEL          a probe lock's release channel
-- ARGV[2]  PUBLISH_COMMAND  PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster
-- Returns 1 when every command is granted (or before Redis 7, which cannot tell), else NOPERM's error reply.
--#arguments
--#include acl-guard.lua (defines refusedGrant)
local key = KEYS[1]
local refused = refusedGrant and refusedGrant('HSET', key, 'HSETNX', key, 'HINCRBY', key, 'PTTL', key, 'PEXPIRE', key,
  'HMGET', key, 'HGET', key, 'HDEL', key, 'HGETALL', key, 'HEXISTS', key, 'PEXPIREAT', key, 'EXISTS', key, 'GET', key,
  'SET', key, 'DEL', key, 'ZADD', key, 'ZREM', key, 'ZSCORE', key, 'ZCARD', key, 'ZRANK', key, 'ZRANGE', key,
  'ZRANGEBYSCORE', key, 'ZREMRANGEBYSCORE', key, PUBLISH_COMMAND, CHANNEL)
return refused or 1
