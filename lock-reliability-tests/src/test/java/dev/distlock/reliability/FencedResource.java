package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The guarded resource of the reliability tests: it accepts a write only if its fencing token is higher than every
 * token accepted before, and logs the accepted tokens in order. It lives on its own Redis server, apart from the lock's,
 * so that faults injected into the lock's server do not touch it.
 */
final class FencedResource {

    private static final RedisScript<Long> WRITE = RedisScript.of("""
            -- KEYS[1] the highest accepted token, KEYS[2] the log of accepted tokens; ARGV[1] the writer's token
            local highest = tonumber(redis.call('GET', KEYS[1]) or '0')
            if tonumber(ARGV[1]) <= highest then
              return 0
            end
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('RPUSH', KEYS[2], ARGV[1])
            return 1
            """, Long.class);

    private final StringRedisTemplate resource;

    private final String name;

    FencedResource(StringRedisTemplate resource, String name) {
        this.resource = resource;
        this.name = name;
    }

    /** Writes with the given token: true when accepted, false when the token was stale. */
    boolean write(long fencingToken) {
        Long reply = this.resource.execute(WRITE, List.of(this.name + ":highest", this.name + ":accepted"),
                Long.toString(fencingToken));
        return reply != null && reply == 1;
    }

    /** The accepted tokens, in the order they were accepted. */
    List<Long> accepted() {
        List<Long> tokens = new ArrayList<>();
        List<String> values = this.resource.opsForList().range(this.name + ":accepted", 0, -1);
        if (values != null) {
            for (String value : values) {
                tokens.add(Long.parseLong(value));
            }
        }
        return tokens;
    }
}
