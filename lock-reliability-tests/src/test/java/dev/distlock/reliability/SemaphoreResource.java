package dev.distlock.reliability;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The guarded resource of a semaphore, on the resource's own Redis (apart from the lock's, so faults never touch it).
 * Holders of a semaphore overlap legitimately, so it cannot turn away lower tokens as {@link FencedResource} does;
 * it tracks its writers instead: a holder enters with its grant's token and leaves with it, and an entry is accepted
 * only for a token that has not entered before (a token is one grant's) nor left.
 */
final class SemaphoreResource {

    private static final RedisScript<Long> ENTER = RedisScript.of("""
            -- KEYS[1] every token that entered, KEYS[2] the log of accepted entries; ARGV[1] the token
            if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
              return 0
            end
            redis.call('RPUSH', KEYS[2], ARGV[1])
            return 1
            """, Long.class);

    private final StringRedisTemplate resource;

    private final String name;

    SemaphoreResource(StringRedisTemplate resource, String name) {
        this.resource = resource;
        this.name = name;
    }

    /** A holder enters with its token: true when accepted, false for a token seen before. */
    boolean enter(long fencingToken) {
        Long reply = this.resource.execute(ENTER, List.of(this.name + ":entered", this.name + ":accepted"),
                Long.toString(fencingToken));
        return reply != null && reply == 1;
    }

    /** How many entries were accepted. */
    long acceptedCount() {
        Long size = this.resource.opsForList().size(this.name + ":accepted");
        return size == null ? 0 : size;
    }
}
