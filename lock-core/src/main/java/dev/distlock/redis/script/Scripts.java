package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FAIR;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LAST_OF_RUN;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.NEW_HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.NEW_OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PERMITS;
import static dev.distlock.redis.script.ScriptArgument.PERMIT_LIMIT;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_ONLY_TO_WAITERS;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WAITING;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.util.List;
import java.util.Set;

import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The catalogue of the lock's Lua scripts, one per operation, each read once from the classpath
 * ({@code dev/distlock/redis/script/*.lua}) with its ARGV layout checked against its header (docs/data-layout.md).
 * Knows no lock type: the types pick their scripts here.
 */
public final class Scripts {

    /** The arguments every grant script takes first, in this order. */
    static final List<ScriptArgument> GRANT_ARGUMENTS = List.of(OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY,
            RESTART_GRACE_MILLIS);

    /** The arguments every release script takes first, in this order. */
    static final List<ScriptArgument> RELEASE_ARGUMENTS = List.of(OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, WATCHDOG,
            KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND);

    // The plain lock: a hash with its holds, also the fair lock's and the writer's.

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

    // The fair lock: the plain hash, a queue of waiters and their places.

    static final ScriptLayout<Long> FAIR_ACQUIRE = ScriptLayout.load("fair-acquire.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, PLACE_LEASE_MILLIS, CHANNEL,
            PUBLISH_COMMAND);

    static final ScriptLayout<Long> FAIR_RELEASE = ScriptLayout.load("fair-release.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> FAIR_LEAVE = ScriptLayout.load("fair-leave.lua", Long.class, OWNER_TOKEN, CHANNEL,
            PUBLISH_COMMAND);

    // The read/write lock: readers by lease end, a hash per reader, the writer's plain hash, its intent.

    static final ScriptLayout<Long> READ_ACQUIRE = ScriptLayout.load("read-acquire.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS);

    static final ScriptLayout<Long> READ_RELEASE = ScriptLayout.load("read-release.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND,
            MESSAGE);

    @SuppressWarnings("rawtypes")
    static final ScriptLayout<List> READ_RENEW = ScriptLayout.load("read-renew.lua", List.class, LEASE_MILLIS,
            OWNER_TOKEN);

    static final ScriptLayout<Long> WRITE_ACQUIRE = ScriptLayout.load("write-acquire.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS,
            PLACE_LEASE_MILLIS);

    static final ScriptLayout<Long> WRITE_WITHDRAW = ScriptLayout.load("write-withdraw.lua", Long.class, OWNER_TOKEN,
            CHANNEL, PUBLISH_COMMAND, MESSAGE);

    // The semaphore, plain or fair.

    static final ScriptLayout<Long> SEM_ACQUIRE = ScriptLayout.load("sem-acquire.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS, PERMIT_LIMIT,
            PERMITS, FAIR, PLACE_LEASE_MILLIS, WAITING, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> SEM_RELEASE = ScriptLayout.load("sem-release.lua", Long.class, OWNER_TOKEN,
            HOLD_ID, FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND,
            MESSAGE);

    static final ScriptLayout<Long> SEM_LEAVE = ScriptLayout.load("sem-leave.lua", Long.class, OWNER_TOKEN, CHANNEL,
            PUBLISH_COMMAND);

    @SuppressWarnings("rawtypes")
    static final ScriptLayout<List> SEM_RENEW = ScriptLayout.load("sem-renew.lua", List.class, LEASE_MILLIS,
            OWNER_TOKEN);

    /** The scripts that grant: on a Redis Cluster with replica acknowledgements each runs with WAIT after it. */
    private static final Set<RedisScript<?>> GRANTS = Set.of(ACQUIRE.script(), HAND_OFF.script(),
            FAIR_ACQUIRE.script(), READ_ACQUIRE.script(), WRITE_ACQUIRE.script(), SEM_ACQUIRE.script());

    private Scripts() {
    }

    /** Every script a service may run: the lock types', their renewals' and the start-up check's. */
    static List<ScriptLayout<?>> all() {
        return List.of(ACQUIRE, RELEASE, HAND_OFF, RENEW, ACCESS_CHECK, FAIR_ACQUIRE, FAIR_RELEASE, FAIR_LEAVE,
                READ_ACQUIRE, READ_RELEASE, READ_RENEW, WRITE_ACQUIRE, WRITE_WITHDRAW, SEM_ACQUIRE, SEM_RELEASE,
                SEM_LEAVE, SEM_RENEW);
    }

    /** Whether {@code script} (as the catalogue holds it, before the ACL guard's choice) grants a lock. */
    static boolean grants(RedisScript<?> script) {
        return GRANTS.contains(script);
    }

    /** A script read with its includes, its arguments named (see {@link ScriptLayout#read}), its header unchecked. */
    public static <T> RedisScript<T> load(String name, Class<T> resultType) {
        // Read once into a String: a script built on a classpath resource checks the resource's last-modified time
        // (opening the jar) every time Spring asks for its SHA-1, which is on every call.
        return new DefaultRedisScript<>(ScriptLayout.read(name), resultType);
    }
}
