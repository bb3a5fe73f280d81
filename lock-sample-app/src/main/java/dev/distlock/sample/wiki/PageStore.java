package dev.distlock.sample.wiki;

import java.util.Arrays;
import java.util.List;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Wiki pages in Redis, one edit per line. A locked writer's write carries its fencing token, and the store rejects a
 * token older than the newest it has accepted: a writer whose lease ran out while it was paused cannot overwrite the
 * work of the holder that came after it.
 */
@Component
public class PageStore {

    private static final RedisScript<Long> FENCED_WRITE = RedisScript
        .of(new ClassPathResource("dev/distlock/sample/wiki/fenced-write.lua"), Long.class);

    private final StringRedisTemplate redis;

    public PageStore(StringRedisTemplate redis) {
        this.redis = redis;
    }

    public Page page(String id) {
        String body = read(id);
        String token = this.redis.opsForValue().get(tokenKey(id));
        List<String> edits = body.isEmpty() ? List.of() : Arrays.asList(body.split("\n"));
        return new Page(id, edits, (token != null) ? Long.parseLong(token) : 0);
    }

    public String read(String id) {
        String body = this.redis.opsForValue().get(bodyKey(id));
        return (body != null) ? body : "";
    }

    /**
     * Writes the page if {@code fencingToken} is not older than the newest token the page has accepted.
     *
     * @throws StaleTokenException when it is
     */
    public void write(String id, String body, long fencingToken) {
        Long reply = this.redis.execute(FENCED_WRITE, List.of(bodyKey(id), tokenKey(id)), body,
                Long.toString(fencingToken));
        if (reply == null || reply <= 0) {
            throw new StaleTokenException(id, fencingToken, (reply != null) ? -reply : -1);
        }
    }

    /** Writes with no fencing check, as the unlocked variant does. */
    public void writeUnfenced(String id, String body) {
        this.redis.opsForValue().set(bodyKey(id), body);
    }

    private static String bodyKey(String id) {
        return "sample:wiki:" + id + ":body";
    }

    private static String tokenKey(String id) {
        return "sample:wiki:" + id + ":token";
    }

    /** A page: its edits in order, and the newest fencing token its store accepted. */
    public record Page(String id, List<String> edits, long fencingToken) {
    }
}
