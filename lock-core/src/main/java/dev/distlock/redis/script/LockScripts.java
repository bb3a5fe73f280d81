package dev.distlock.redis.script;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock's Lua scripts, one per operation, read once from the classpath ({@code dev/distlock/redis/*.lua}) and run
 * with EVALSHA through the template, which falls back to EVAL (reloading the script) when Redis answers NOSCRIPT after
 * a {@code SCRIPT FLUSH} or a restart.
 */
public final class LockScripts {

    /** What {@link #release} answers. */
    public static final long FREED = 1;

    static final long STILL_HELD = 2;

    public static final long ALREADY_RELEASED = 0;

    public static final long HELD_BY_ANOTHER = -1;

    public static final long NOT_HELD = -2;

    /** This owner's last hold ended but the lock stays held by others (a reader among readers): nobody to wake. */
    static final long FREED_QUIETLY = 3;

    /** What {@link #handOff} answers when the owner has other holds: nothing was handed off. */
    public static final long OTHER_HOLDS_REMAIN = -3;

    /** What {@link #handOff} answers at the end of a run of hand-offs when others wait: nothing was handed off. */
    public static final long OTHERS_WAIT = -4;

    /** What the renewal scripts answer per lock: the lease was extended. */
    public static final int RENEWED = 1;

    /** The lock is deleted or held by another owner: the lease is lost. */
    public static final int NOT_HELD_BY_OWNER = 0;

    /** Still held by the owner, but none of its open holds asks for renewal: left as it is. */
    static final int NOT_RENEWED = 2;

    private final StringRedisTemplate redis;

    private final RedisScript<Long> acquire = load("acquire.lua", Long.class);

    private final RedisScript<Long> release = load("release.lua", Long.class);

    private final RedisScript<Long> handOff = load("handoff.lua", Long.class);

    @SuppressWarnings("rawtypes")
    private final RedisScript<List> renew = load("renew.lua", List.class);

    private final RestartGrace restartGrace;

    private final AsyncScriptRunner async;

    /** On a Redis Cluster with replica acknowledgements: runs grants and renewals, each with its WAIT; else null. */
    private final @Nullable AcknowledgedClusterScripts acknowledged;

    /** The grant scripts {@link #acknowledged} runs (those {@link #grantCall} was given). */
    private final Set<RedisScript<Long>> grantScripts = ConcurrentHashMap.newKeySet();

    public LockScripts(StringRedisTemplate redis) {
        this(redis, RestartGrace.none());
    }

    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace) {
        this(redis, restartGrace, null);
    }

    /**
     * @param acknowledged on a Redis Cluster with replica acknowledgements, what runs grants and renewals on their
     * slot's master followed by WAIT there; else null
     */
    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace,
            @Nullable AcknowledgedClusterScripts acknowledged) {
        this.redis = redis;
        this.restartGrace = restartGrace;
        this.async = new AsyncScriptRunner(redis.getRequiredConnectionFactory());
        this.acknowledged = acknowledged;
    }

    /** The line that includes a shared file, followed by its name (see {@link #read}). */
    private static final String INCLUDE = "--#include ";

    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        // Read once into a String: a script built on a classpath resource checks the resource's last-modified time
        // (opening the jar) every time Spring asks for its SHA-1, which is on every call.
        return new DefaultRedisScript<>(read(name), resultType);
    }

    /**
     * A script's text, with each line {@code --#include <file>} replaced by that file of the same folder: a Lua
     * function several scripts share is written once.
     */
    private static String read(String name) {
        ClassPathResource resource = new ClassPathResource("dev/distlock/redis/script/" + name);
        String text;
        try {
            text = resource.getContentAsString(StandardCharsets.UTF_8);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not read the lock script " + resource, ex);
        }
        List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
        lines.replaceAll(line -> line.startsWith(INCLUDE)
                ? read(line.substring(INCLUDE.length()).split(" ", 2)[0]).stripTrailing() : line);
        return String.join("\n", lines);
    }

    /**
     * Runs acquire.lua: returns the fencing token ({@code > 0}) when granted, {@code 0} when a re-entry found the
     * owner's hold gone, otherwise {@code -1 - holder's remaining lease in ms}.
     */
    ScriptCall acquire(String lockHash, String ownerToken, LockType.Grant grant) {
        return grantCall(this.acquire, List.of(lockHash), ownerToken, grant.holdId(), grant.leaseMillis(),
                grant.watchdogFlag(), grant.reentryFlag(), grant.waitingFlag());
    }

    /**
     * A call of an acquire script with the restart grace's marker key and grace (ms) appended to its keys and
     * arguments; a reply of {@link RestartGrace#refused} or below means the grace refused a new grant.
     */
    ScriptCall grantCall(RedisScript<Long> script, List<String> keys, Object... args) {
        List<String> allKeys = new ArrayList<>(keys.size() + 1);
        allKeys.addAll(keys);
        allKeys.add(this.restartGrace.marker(keys.get(0)));
        Object[] allArgs = java.util.Arrays.copyOf(args, args.length + 1);
        allArgs[args.length] = this.restartGrace.graceMillis();
        if (this.acknowledged != null) {
            this.grantScripts.add(script);
        }
        return new ScriptCall(this, script, allKeys, allArgs);
    }

    /**
     * Runs handoff.lua: the releasing owner's last hold ends and the new owner's grant starts in one call. Returns the
     * new fencing token ({@code > 0}), or one of {@link #ALREADY_RELEASED}, {@link #HELD_BY_ANOTHER}, {@link
     * #NOT_HELD}, {@link #OTHER_HOLDS_REMAIN}, {@link #OTHERS_WAIT}, having changed nothing.
     */
    long handOff(String lockHash, String ownerToken, LockType.Release release, String newOwnerToken,
            LockType.Grant grant, boolean lastOfRun) {
        return run(this.handOff, List.of(lockHash), ownerToken, release.holdId(),
                Long.toString(release.fencingToken()), newOwnerToken, grant.holdId(), grant.leaseMillis(),
                grant.watchdogFlag(), lastOfRun ? "1" : "0");
    }

    /**
     * Runs release.lua, publishing a freed lock's message with {@code publishCommand} (with {@code
     * publishOnlyToWaiters}, only when a waiting caller was refused since the last message). Returns one of {@link
     * #FREED}, {@link #STILL_HELD}, {@link #ALREADY_RELEASED}, ...
     */
    ScriptCall release(String lockHash, String ownerToken, LockType.Release release, String channel, String message,
            String retentionMillis, String publishCommand, boolean publishOnlyToWaiters) {
        return call(this.release, List.of(lockHash), ownerToken, release.holdId(), channel, message, retentionMillis,
                release.keepHeldMillis(), publishCommand, Long.toString(release.fencingToken()),
                release.watchdogFlag(), publishOnlyToWaiters ? "1" : "0");
    }

    /** Runs renew.lua over one batch of locks in one slot: per lock, {@link #RENEWED}, ... */
    int[] renew(List<String> lockHashes, List<String> ownerTokens, String leaseMillis) {
        return renewBatch(this.renew, lockHashes, ownerTokens, leaseMillis);
    }

    /**
     * Runs a renewal script that takes the lease then one owner token per lock, and answers per lock
     * {@link #RENEWED}, {@link #NOT_HELD_BY_OWNER} or {@link #NOT_RENEWED}.
     */
    @SuppressWarnings("rawtypes")
    int[] renewBatch(RedisScript<List> script, List<String> keys, List<String> ownerTokens, String leaseMillis) {
        List<String> args = new ArrayList<>(ownerTokens.size() + 1);
        args.add(leaseMillis);
        args.addAll(ownerTokens);
        List<?> replies = (this.acknowledged != null) ? this.acknowledged.renew(script, keys, args.toArray())
                : this.redis.execute(script, keys, args.toArray());
        if (replies == null) {
            throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
        }
        int[] renewed = new int[ownerTokens.size()];
        for (int i = 0; i < renewed.length; i++) {
            renewed[i] = ((Number) replies.get(i)).intValue();
        }
        return renewed;
    }

    /** A call of an integer-answering script. */
    ScriptCall call(RedisScript<Long> script, List<String> keys, Object... args) {
        return new ScriptCall(this, script, keys, args);
    }

    /** Sends a script without waiting for it; see {@link ScriptCall#runAsync()}. */
    CompletableFuture<Long> runAsync(RedisScript<Long> script, List<String> keys, Object[] args) {
        return this.async.run(script, keys, args);
    }

    long run(RedisScript<Long> script, List<String> keys, Object... args) {
        if (this.acknowledged != null && this.grantScripts.contains(script)) {
            return this.acknowledged.grant(script, keys, args);
        }
        Long reply = this.redis.execute(script, keys, args);
        if (reply == null) {
            // Only inside a pipeline or transaction, which a lock cannot take part in.
            throw new IllegalStateException("Lock scripts cannot run in a Redis pipeline or transaction");
        }
        return reply;
    }

    /** Deletes keys of one lock (one slot) with a plain DEL. */
    public void delete(List<String> keys) {
        this.redis.delete(keys);
    }

    /**
     * Runs {@code WAIT} on the shared connection, after the writes this client sent on it: how many replicas
     * acknowledged them within the timeout. Other commands on the shared connection wait behind it meanwhile. Needs
     * Lettuce. On a Redis Cluster it ran already, after this thread's last grant or renewal, on that call's node.
     */
    public long waitForReplicas(int replicas, long timeoutMillis) {
        if (this.acknowledged != null) {
            return this.acknowledged.acknowledged();
        }
        Long acknowledged = this.redis.execute((RedisCallback<Long>) connection -> {
            if (!(connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?> commands)) {
                throw new IllegalStateException("Replica acknowledgements need a Lettuce connection");
            }
            // Redis answers by the WAIT timeout; the extra second only bounds a connection that stopped answering.
            return LettuceFutures.awaitOrCancel(commands.waitForReplication(replicas, timeoutMillis),
                    timeoutMillis + 1000, TimeUnit.MILLISECONDS);
        });
        return (acknowledged != null) ? acknowledged : 0;
    }
}
