#!/usr/bin/env bash
# Redis CPU of one lock cycle's common path in three layouts (today's hash, the hash with fewer fields, a string) and
# the raw floor's, each as one script that redis-benchmark repeats over 10,000 keys (32 pipelined, one connection), on
# Debian's jemalloc redis-server. Prints, per round, script time (INFO commandstats) and Redis CPU (INFO cpu) per
# cycle; rounds alternate the layouts, so compare them round by round. Usage: lock-benchmarks/layout-cost.sh [rounds]
set -euo pipefail
rounds=${1:-6}
calls=300000
dir=$(cd "$(dirname "$0")/src/main/resources/dev/distlock/bench/layouts" && pwd)
port=$((20000 + RANDOM % 10000))
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --logfile /dev/null
trap 'redis-cli -p "$port" shutdown nosave > /dev/null 2>&1 || true' EXIT
until redis-cli -p "$port" ping > /dev/null 2>&1; do sleep 0.1; done
cpu() { redis-cli -p "$port" info cpu | awk -F: '/used_cpu_(sys|user):/ { s += $2 } END { printf "%.6f", s }'; }
bench() { # sha calls
  redis-benchmark -p "$port" -n "$2" -r 10000 -P 32 -c 1 -q evalsha "$1" 1 'distlock:{bench-key-__rand_int__}:lock' \
    0123456789abcdef0123456789abcdef 42 30000 181000 > /dev/null 2>&1
}
echo "redis-server $(redis-cli -p "$port" info server | tr -d '\r' | grep -E '^redis_version' | cut -d: -f2)," \
  "$(redis-cli -p "$port" info memory | tr -d '\r' | grep -E '^mem_allocator' | cut -d: -f2); $calls cycles a row"
for round in $(seq 1 "$rounds"); do
  for layout in hash folded string floor; do
    sha=$(redis-cli -p "$port" -x script load < "$dir/$layout-cycle.lua")
    redis-cli -p "$port" flushall > /dev/null
    bench "$sha" 20000 # every key cycled once: the hashes are kept, as in a run of cycles
    redis-cli -p "$port" config resetstat > /dev/null
    before=$(cpu)
    bench "$sha" "$calls"
    after=$(cpu)
    stats=$(redis-cli -p "$port" info commandstats | tr -d '\r' | grep '^cmdstat_evalsha:')
    usec=$(echo "$stats" | sed 's/.*,usec=\([0-9]*\),.*/\1/')
    done_calls=$(echo "$stats" | sed 's/^cmdstat_evalsha:calls=\([0-9]*\),.*/\1/')
    failed=$(echo "$stats" | sed 's/.*failed_calls=\([0-9]*\).*/\1/')
    awk -v r="$round" -v l="$layout" -v u="$usec" -v c="$done_calls" -v b="$before" -v a="$after" -v f="$failed" \
      'BEGIN { printf "round %d  %-7s script %6.2f us/cycle  Redis CPU %6.2f us/cycle  failed %d\n", r, l, u / c, (a - b) * 1e6 / c, f }'
  done
done
