package dev.distlock.redis;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A deterministic in-memory stand-in for Redis, for {@link LocalQueueModelCheckTest} only (issue 49 allows it there
 * and nowhere else): Lincheck's model checker cannot follow Lettuce's network I/O. It plugs in where the engine's
 * blocking script calls leave for Redis, the template's {@code execute(RedisScript, keys, args)} (ScriptRouter runs
 * them there on a connection factory other than Lettuce's), and answers the exclusive lock's three scripts on the
 * caller's thread (told apart by the arguments their first line names), as acquire.lua, release.lua and handoff.lua answer: the owner token that holds the lock, its open
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

    /** Each script's argument line, read at its first call (the test's warm-up, outside the model checker). */
    private final Map<RedisScript<?>, String[][]> argumentLines = new IdentityHashMap<>();

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
        Map<String, String> named = arguments(this.argumentLines.computeIfAbsent(script,
                sent -> argumentLine(sent.getScriptAsString())), args);
        String owner = named.get("OWNER_TOKEN");
        String holdId = named.get("HOLD_ID");
        Long reply;
        if (named.containsKey("NEW_OWNER_TOKEN")) {
            reply = handOff(owner, holdId, named.get("NEW_OWNER_TOKEN"), named.get("NEW_HOLD_ID"));
        }
        else if (named.containsKey("WAITING")) {
            reply = acquire(owner, holdId, "1".equals(named.get("REENTRY")));
        }
        else if (named.containsKey("FENCING_TOKEN") && keys.size() == 2) {
            reply = release(owner, holdId);
        }
        else {
            throw new IllegalStateException("The stand-in does not run " + script.getSha1() + " on " + keys);
        }
        return (T) reply;
    }

    /**
     * The line ScriptLayout writes at the top of each script, naming its arguments: {@code local OWNER_TOKEN, HOLD_ID =
     * ARGV[1], ARGV[2]} (a value written into the text stands as {@code '0'}), as names, then values.
     */
    private static String[][] argumentLine(String text) {
        int start = text.indexOf("\nlocal ") + 1;
        while (start > 0) {
            String line = text.substring(start, text.indexOf('\n', start));
            int equals = line.indexOf(" = ");
            if (equals > 0 && line.contains("ARGV[")) {
                return new String[][] { line.substring(6, equals).split(", "), line.substring(equals + 3).split(", ") };
            }
            start = text.indexOf("\nlocal ", start) + 1;
        }
        return new String[][] { {}, {} };
    }

    /** A call's arguments by name. */
    private static Map<String, String> arguments(String[][] line, Object[] args) {
        Map<String, String> named = new HashMap<>();
        for (int i = 0; i < line[0].length; i++) {
            String value = line[1][i].trim();
            named.put(line[0][i].trim(), value.startsWith("ARGV[")
                    ? (String) args[Integer.parseInt(value.substring(5, value.length() - 1)) - 1]
                    : value.substring(1, value.length() - 1));
        }
        return named;
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
