package dev.distlock.redis;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A deterministic in-memory stand-in for Redis, for {@link LocalQueueModelCheckTest} only (issue 49 allows it there
 * and nowhere else): Lincheck's model checker cannot follow Lettuce's network I/O. It plugs in where the engine's
 * blocking script calls leave for Redis, the template's {@code execute(RedisScript, keys, args)} (ScriptSender runs
 * them there on a connection factory other than Lettuce's), and answers the exclusive lock's three scripts on the
 * caller's thread, as acquire.lua, release.lua and handoff.lua answer: the owner token that holds the lock, its open
 * hold ids, the fencing token. Every other call (the start-up probes, the instance record) fails as an unreachable
 * Redis does, which the engine tolerates. No lease expiry: Lincheck models {@code System.nanoTime()} as a constant.
 */
final class InMemoryLockRedis extends StringRedisTemplate {

    /** One lock hash; one key is all the model check uses. */
    private static final class LockHash {

        String owner;

        final List<String> holds = new ArrayList<>();

        long fence;
    }

    private LockHash lock = new LockHash();

    /** Script calls answered, by kind, for the check's own sanity. */
    int acquires;

    int releases;

    int handOffs;

    InMemoryLockRedis() {
        RedisConnectionFactory unreachable = (RedisConnectionFactory) Proxy.newProxyInstance(
                InMemoryLockRedis.class.getClassLoader(), new Class<?>[] { RedisConnectionFactory.class },
                (proxy, method, args) -> switch (method.getName()) {
                    case "toString" -> "in-memory stand-in";
                    case "hashCode" -> 0;
                    case "equals" -> proxy == args[0];
                    case "getConvertPipelineAndTxResults" -> true;
                    default -> throw new RedisConnectionFailureException("in-memory stand-in: no connection");
                });
        setConnectionFactory(unreachable);
    }

    /** Forgets every key, for the next run of a scenario. */
    synchronized void reset() {
        this.lock = new LockHash();
        this.acquires = 0;
        this.releases = 0;
        this.handOffs = 0;
    }

    /** Whether some owner holds the lock. */
    synchronized boolean held() {
        return this.lock.owner != null;
    }

    @Override
    public <T> T execute(RedisCallback<T> action) {
        throw new RedisConnectionFailureException("in-memory stand-in: only the lock scripts run here");
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
        Long reply = switch (args.length) { // the scripts' arities: see LockScripts' layouts
            case 7 -> acquire(arg(args, 1), arg(args, 2), "1".equals(arg(args, 5)));
            case 10 -> release(arg(args, 1), arg(args, 2));
            case 9 -> handOff(arg(args, 1), arg(args, 2), arg(args, 4), arg(args, 5));
            default -> throw new IllegalStateException("The stand-in does not run " + script.getSha1());
        };
        return (T) reply;
    }

    private static String arg(Object[] args, int position) {
        return (String) args[position - 1];
    }

    /** acquire.lua: the fencing token, 0 for a re-entry whose hold is gone, -1 - (ms left) when another holds. */
    private long acquire(String owner, String holdId, boolean reentry) {
        this.acquires++;
        LockHash hash = this.lock;
        if (owner.equals(hash.owner)) {
            hash.holds.add(holdId);
            return hash.fence;
        }
        if (reentry) {
            return 0;
        }
        if (hash.owner != null) {
            return -1 - 30_000;
        }
        hash.owner = owner;
        hash.holds.add(holdId);
        return ++hash.fence;
    }

    /** release.lua: FREED, STILL_HELD, HELD_BY_ANOTHER or NOT_HELD. */
    private long release(String owner, String holdId) {
        this.releases++;
        LockHash hash = this.lock;
        if (!owner.equals(hash.owner) || !hash.holds.remove(holdId)) {
            return (hash.owner != null) ? -1 : -2;
        }
        if (!hash.holds.isEmpty()) {
            return 2;
        }
        hash.owner = null;
        return 1;
    }

    /** handoff.lua: the new fencing token, or why nothing was handed (nobody elsewhere waits here). */
    private long handOff(String owner, String holdId, String newOwner, String newHoldId) {
        this.handOffs++;
        LockHash hash = this.lock;
        if (!owner.equals(hash.owner) || !hash.holds.contains(holdId)) {
            return (hash.owner != null) ? -1 : -2;
        }
        if (hash.holds.size() > 1) {
            return -3; // OTHER_HOLDS_REMAIN
        }
        hash.holds.clear();
        hash.owner = newOwner;
        hash.holds.add(newHoldId);
        return ++hash.fence;
    }
}
