package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LAST_OF_RUN;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.NEW_HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.NEW_OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_ONLY_TO_WAITERS;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WAITING;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The lock's Lua scripts, one per operation, read once from the classpath ({@code dev/distlock/redis/script/*.lua}):
 * one text per script (two with the ACL guard's variant, of which a service runs one), every argument sent as ARGV.
 * The service loads them with {@code SCRIPT LOAD} when it starts ({@link ScriptSender#loadScripts()}) and runs them
 * with EVALSHA; a NOSCRIPT after a {@code SCRIPT FLUSH}, a restart or a failover loads them again
 * ({@link ScriptReload}). Lock calls, blocking or not, go straight to the Lettuce connection
 * ({@link AsyncScriptRunner}); the template runs them only on a connection factory other than Lettuce's and for grants with replica acknowledgements on
 * a Redis Cluster, and it runs renewals and every other command.
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

    /** The arguments every grant script takes first, in this order (see {@link #grantCall}). */
    static final List<ScriptArgument> GRANT_ARGUMENTS = List.of(OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY,
            RESTART_GRACE_MILLIS);

    /** The arguments every release script takes first, in this order (see {@link #releaseArguments}). */
    static final List<ScriptArgument> RELEASE_ARGUMENTS = List.of(OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, WATCHDOG,
            KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> ACQUIRE = ScriptLayout.load("acquire.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, WAITING);

    static final ScriptLayout<Long> RELEASE = ScriptLayout.load("release.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND, MESSAGE,
            PUBLISH_ONLY_TO_WAITERS);

    static final ScriptLayout<Long> HAND_OFF = ScriptLayout.load("handoff.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            FENCING_TOKEN, NEW_OWNER_TOKEN, NEW_HOLD_ID, LEASE_MILLIS, WATCHDOG, LAST_OF_RUN, TOKEN_RETENTION_MILLIS);

    @SuppressWarnings("rawtypes")
    static final ScriptLayout<List> RENEW = ScriptLayout.load("renew.lua", List.class, LEASE_MILLIS, OWNER_TOKEN);

    /** The start-up check's: whether the user may run every command the scripts run (see AccessCheck). */
    static final ScriptLayout<Long> ACCESS_CHECK = ScriptLayout.loadAlwaysGuarded("access-check.lua", Long.class,
            CHANNEL, PUBLISH_COMMAND);

    private final RestartGrace restartGrace;

    private final ScriptSender sender;

    private final RenewalScripts renewals;

    public LockScripts(StringRedisTemplate redis) {
        this(redis, RestartGrace.none());
    }

    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace) {
        this(redis, restartGrace, null, null, true);
    }

    /**
     * @param acknowledged on a Redis Cluster with replica acknowledgements, what runs grants and renewals on their
     * slot's master followed by WAIT there; else null
     * @param callTimeout how long a lock call waits for Redis when shorter than the client's command timeout (see
     * {@code RedisLockServiceBuilder#callTimeout}); null: the client's timeout
     * @param loadScripts whether to load the scripts when it starts ({@link ScriptSender#loadScripts()}): not behind a
     * sharding proxy, which does not pass {@code SCRIPT LOAD} on (there each script loads with EVAL after NOSCRIPT)
     */
    public LockScripts(StringRedisTemplate redis, RestartGrace restartGrace,
            @Nullable AcknowledgedClusterScripts acknowledged, @Nullable Duration callTimeout, boolean loadScripts) {
        this.redis = redis;
        this.restartGrace = restartGrace;
        AclGuard aclGuard = new AclGuard();
        this.sender = new ScriptSender(redis, aclGuard, acknowledged, callTimeout, loadScripts);
        this.renewals = new RenewalScripts(redis, acknowledged, aclGuard, this.sender);
        this.sender.loadScripts();
    }

    /** Every script a service may run: the lock types', their renewals' and the start-up check's. */
    static List<ScriptLayout<?>> layouts() {
        return List.of(ACQUIRE, RELEASE, HAND_OFF, RENEW, ACCESS_CHECK, FairLock.ACQUIRE, FairLock.RELEASE,
                FairLock.LEAVE, ReadLock.ACQUIRE, ReadLock.RELEASE, ReadLock.RENEW, WriteLock.ACQUIRE,
                WriteLock.WITHDRAW, SemaphoreLock.ACQUIRE, SemaphoreLock.RELEASE, SemaphoreLock.LEAVE,
                SemaphoreLock.RENEW);
    }

    /**
     * Decides, from the Redis user's ACL, whether the scripts run their ACL guard (see {@link AclGuard}): off for a
     * user granted every command, key and channel, else on. Runs {@code ACL WHOAMI} and {@code ACL GETUSER}, and loads
     * the scripts the service runs from then on.
     */
    public void decideAclGuard() {
        this.sender.decideAclGuard();
    }

    /** Whether Redis's error says it refused a command, key or channel for lack of permission (see AclGuard). */
    public static boolean refusesPermission(String message) {
        return AclGuard.refusesPermission(message);
    }

    /** A script read with its includes, its arguments named (see {@link ScriptLayout#read}), its header unchecked. */
    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        // Read once into a String: a script built on a classpath resource checks the resource's last-modified time
        // (opening the jar) every time Spring asks for its SHA-1, which is on every call.
        return new DefaultRedisScript<>(ScriptLayout.read(name), resultType);
    }

    /**
     * Runs acquire.lua: returns the fencing token ({@code > 0}) when granted, {@code 0} when a re-entry found the
     * owner's hold gone, otherwise {@code -1 - holder's remaining lease in ms}.
     */
    ScriptCall acquire(String lockHash, String ownerToken, LockType.Grant grant) {
        return grantCall(ACQUIRE, List.of(lockHash), ownerToken, grant, grantArguments(ACQUIRE, ownerToken, grant)
            .set(WAITING, grant.waitingFlag()));
    }

    /**
     * The arguments every grant script shares ({@link #GRANT_ARGUMENTS}) but the restart grace, which
     * {@link #grantCall} sets.
     */
    static ScriptLayout<Long>.Arguments grantArguments(ScriptLayout<Long> layout, String ownerToken,
            LockType.Grant grant) {
        return layout.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, grant.holdId())
            .set(LEASE_MILLIS, grant.leaseMillis())
            .set(WATCHDOG, grant.watchdogFlag())
            .set(REENTRY, grant.reentryFlag());
    }

    /** The arguments every release script shares ({@link #RELEASE_ARGUMENTS}). */
    static ScriptLayout<Long>.Arguments releaseArguments(ScriptLayout<Long> layout, String ownerToken,
            LockType.Release release, String retentionMillis, String channel, String publishCommand) {
        return layout.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, release.holdId())
            .set(FENCING_TOKEN, Long.toString(release.fencingToken()))
            .set(WATCHDOG, release.watchdogFlag())
            .set(KEEP_HELD_MILLIS, release.keepHeldMillis())
            .set(TOKEN_RETENTION_MILLIS, retentionMillis)
            .set(CHANNEL, channel)
            .set(PUBLISH_COMMAND, publishCommand);
    }

    /**
     * A call of a grant script with the restart grace's marker key appended to its keys and the grace (ms) set as
     * {@link ScriptArgument#RESTART_GRACE_MILLIS}; a reply of {@link RestartGrace#refused} or below means the grace
     * refused a new grant.
     */
    ScriptCall grantCall(ScriptLayout<Long> layout, List<String> keys, String ownerToken, LockType.Grant grant,
            ScriptLayout<Long>.Arguments args) {
        List<String> allKeys = new ArrayList<>(keys.size() + 1);
        allKeys.addAll(keys);
        allKeys.add(this.restartGrace.marker(keys.get(0)));
        args.set(RESTART_GRACE_MILLIS, this.restartGrace.graceMillis());
        this.sender.grants(layout.script());
        return new ScriptCall(this, layout.script(), allKeys, args.toArray());
    }

    /**
     * Runs handoff.lua: the releasing owner's last hold ends and the new owner's grant starts in one call. Returns the
     * new fencing token ({@code > 0}), or one of {@link #ALREADY_RELEASED}, {@link #HELD_BY_ANOTHER}, {@link
     * #NOT_HELD}, {@link #OTHER_HOLDS_REMAIN}, {@link #OTHERS_WAIT}, having changed nothing.
     */
    ScriptCall handOff(String lockHash, String freedMark, String ownerToken, LockType.Release release,
            String newOwnerToken, LockType.Grant grant, boolean lastOfRun, String retentionMillis) {
        this.sender.grants(HAND_OFF.script()); // a grant to the waiter: WAIT on its master after it
        return call(HAND_OFF.script(), List.of(lockHash, freedMark), HAND_OFF.newArguments()
            .set(OWNER_TOKEN, ownerToken)
            .set(HOLD_ID, release.holdId())
            .set(FENCING_TOKEN, Long.toString(release.fencingToken()))
            .set(NEW_OWNER_TOKEN, newOwnerToken)
            .set(NEW_HOLD_ID, grant.holdId())
            .set(LEASE_MILLIS, grant.leaseMillis())
            .set(WATCHDOG, grant.watchdogFlag())
            .set(LAST_OF_RUN, LockType.flag(lastOfRun))
            .set(TOKEN_RETENTION_MILLIS, retentionMillis)
            .toArray());
    }

    /**
     * Runs release.lua, publishing a freed lock's message with {@code publishCommand} (with {@code
     * publishOnlyToWaiters}, only when a waiting caller was refused since the last message); {@code freedMark}, the
     * key a freeing release leaves its acquisition's mark in
     * (see end-hold.lua). Returns one of {@link #FREED}, {@link #STILL_HELD}, {@link #ALREADY_RELEASED}, ...
     */
    ScriptCall release(String lockHash, String freedMark, String ownerToken, LockType.Release release, String channel,
            String message, String retentionMillis, String publishCommand, boolean publishOnlyToWaiters) {
        return call(RELEASE.script(), List.of(lockHash, freedMark),
                releaseArguments(RELEASE, ownerToken, release, retentionMillis, channel, publishCommand)
                    .set(MESSAGE, message)
                    .set(PUBLISH_ONLY_TO_WAITERS, LockType.flag(publishOnlyToWaiters))
                    .toArray());
    }

    /** Runs the renewal scripts (renew.lua and the other lock types'), a batch of locks in one slot per call. */
    RenewalScripts renewals() {
        return this.renewals;
    }

    /** A call of an integer-answering script, with its arguments in ARGV order. */
    ScriptCall call(RedisScript<Long> script, List<String> keys, Object[] args) {
        return new ScriptCall(this, script, keys, args);
    }

    /** Sends a script without waiting for it; see {@link ScriptCall#runAsync()}. */
    CompletableFuture<Long> runAsync(RedisScript<Long> script, List<String> keys, Object[] args) {
        return this.sender.runAsync(script, keys, args);
    }

    /** Sends a grant script and WAITs on its connection; see {@link ScriptCall#runAcknowledgedAsync}. */
    CompletableFuture<ScriptCall.Acknowledged> runAcknowledgedAsync(RedisScript<Long> script, List<String> keys,
            Object[] args, int replicas, long timeoutMillis) {
        return this.sender.runAcknowledgedAsync(script, keys, args, replicas, timeoutMillis);
    }

    long run(RedisScript<Long> script, List<String> keys, Object... args) {
        return this.sender.run(script, keys, args);
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
        return this.sender.waitForReplicas(replicas, timeoutMillis);
    }
}
