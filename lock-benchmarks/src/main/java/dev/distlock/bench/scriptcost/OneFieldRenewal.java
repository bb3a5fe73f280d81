package dev.distlock.bench.scriptcost;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A renewal of Redisson's shape, for ScriptCost to set beside renew.lua on the same number of locks per call: each lock
 * a hash of one field (the holder's id, as Redisson keeps it), renewed by HEXISTS of that field then PEXPIRE, so that
 * the two rows tell what distlock's six-field hash and its renewal script cost Redis beyond that shape.
 */
final class OneFieldRenewal {

    /**
     * Written here for the comparison: per lock, the holder's field must exist, then the lease is set. ScriptCases
     * also runs it on distlock's own hashes, to tell the script's shape from the data's.
     */
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> RENEW = new DefaultRedisScript<>("""
            local renewed = {}
            for i = 1, #KEYS do
              if redis.call('HEXISTS', KEYS[i], ARGV[i + 1]) == 1 then
                redis.call('PEXPIRE', KEYS[i], ARGV[1])
                renewed[i] = 1
              else
                renewed[i] = 0
              end
            end
            return renewed
            """, List.class);

    private OneFieldRenewal() {
    }

    /** The case: {@code batch} locks per call, its cost per lock as renew.lua's row counts it. */
    @SuppressWarnings("rawtypes")
    static CostCase of(String name, StringRedisTemplate redis, int batch, String lease) {
        String holder = UUID.randomUUID() + ":1";
        IntFunction<CompletableFuture<Long>> take = i -> {
            redis.opsForHash().put(key(i), holder, "1");
            redis.expire(key(i), java.time.Duration.ofMillis(Long.parseLong(lease)));
            return CompletableFuture.completedFuture(1L);
        };
        IntFunction<CompletableFuture<Long>> renew = i -> {
            if ((i + 1) % batch != 0) {
                return CompletableFuture.completedFuture(1L);
            }
            List<String> keys = new ArrayList<>(batch);
            List<Object> args = new ArrayList<>(batch + 1);
            args.add(lease);
            for (int k = i + 1 - batch; k <= i; k++) {
                keys.add(key(k));
                args.add(holder);
            }
            List<?> replies = redis.execute(RENEW, keys, args.toArray());
            boolean all = replies != null && replies.stream().allMatch(code -> ((Number) code).longValue() == 1);
            return CompletableFuture.completedFuture(all ? 1L : 0L);
        };
        return new CostCase(name, "a one-field hash per lock, HEXISTS + PEXPIRE (Redisson's shape)", List.of(take),
                renew, reply -> reply == 1);
    }

    private static String key(int i) {
        return "cost-one-field:lock:" + i;
    }
}
