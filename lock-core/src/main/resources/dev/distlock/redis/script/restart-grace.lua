-- The restart grace: a Redis process younger than the grace may have restarted without the data of leases that still
-- run in their holders, so it grants nothing new until then. The marker key (no expiry: it lives as long as the data,
-- in RDB/AOF and on replicas too, see docs/safety-restarts.md) records that its grace is over, so that INFO runs once
-- per process (per slot on a Cluster), not per call. Returns nil when a new grant may go ahead, else the milliseconds
-- until it may.
local function restartGraceLeft(marker, grace)
  if grace <= 0 or redis.call('EXISTS', marker) == 1 then
    return nil
  end
  -- uptime_in_seconds is whole seconds: count a second less, so the grace never ends early
  local uptime = tonumber(string.match(redis.call('INFO', 'server'), 'uptime_in_seconds:(%d+)')) - 1
  if uptime * 1000 < grace then
    return grace - uptime * 1000
  end
  redis.call('SET', marker, '1')
  return nil
end
