package dev.distlock.redis;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.types.Expiration;

import dev.distlock.HeldLock;
import dev.distlock.LockInstance;
import dev.distlock.redis.lease.Hold;

/**
 * A service instance's record in Redis, so that an operator learns which process holds a lock: the string
 * {@code <prefix>:instance:<instance id>}, where the instance id (16 hex digits) begins every owner token the instance
 * makes, holding one {@code <field> <value>} line per field: {@code host}, {@code app} (when named), {@code pid},
 * {@code started} (epoch ms, the instance's clock), {@code expiry} (ms the record lasts after each refresh) and, for
 * each hold older than one refresh interval (the 100 oldest), {@code hold:<owner token>} with the value
 * {@code "<since epoch ms> <owner, at most 200 characters>"}. Values hold no control characters, so no line break.
 *
 * <p>Nothing of it is on a lock's path: the record is written when the service makes its first owner token and
 * refreshed every renewal interval, on the clean-up thread, never the watchdog's. A refresh is one PEXPIRE while the
 * long holds stay the same; the record is written whole, with its expiry, by one {@code SET ... PX} when they change or
 * when it was gone: a reader never meets half a record, and no record is left without its expiry.
 */
final class InstanceRecord {

    private static final Log logger = LogFactory.getLog(InstanceRecord.class);

    /** The longest holds published, oldest first. */
    static final int MAX_HOLDS = 100;

    static final int MAX_OWNER_LENGTH = 200;

    static final String HOLD_FIELD = "hold:";

    private final StringRedisTemplate redis;

    private final String name;

    private final long intervalMillis;

    private final long expiryMillis;

    private final Supplier<Collection<Hold>> holds;

    private final Map<String, String> identity = new LinkedHashMap<>();

    /** The hold fields last written; null when the record must be written. Used on the clean-up thread only. */
    private @Nullable Map<String, String> published;

    private final AtomicBoolean queued = new AtomicBoolean();

    private volatile boolean started;

    private boolean refusalLogged; // on the clean-up thread only

    InstanceRecord(StringRedisTemplate redis, String prefix, String instanceId, @Nullable String application,
            long intervalNanos, Supplier<Collection<Hold>> holds) {
        this.redis = redis;
        this.name = name(prefix, instanceId);
        this.intervalMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(intervalNanos));
        this.expiryMillis = Math.max(Duration.ofMinutes(10).toMillis(), 3 * this.intervalMillis);
        this.holds = holds;
        if (application != null && !application.isBlank()) {
            this.identity.put("app", bounded(application));
        }
        this.identity.put("pid", Long.toString(ProcessHandle.current().pid()));
        this.identity.put("started", Long.toString(System.currentTimeMillis()));
        this.identity.put("expiry", Long.toString(this.expiryMillis));
    }

    static String name(String prefix, String instanceId) {
        return prefix + ":instance:" + instanceId;
    }

    /**
     * Starts the record, once: the service hands out its first owner token (its first lock call; the access check's
     * probe uses a token of its own). A service that never locks writes no record, and a call refused for bad input
     * leaves Redis as it was.
     */
    void start(Executor executor) {
        if (!this.started) {
            this.started = true;
            schedule(executor);
        }
    }

    /** Queues one refresh on {@code executor} unless one is queued or the record is not started; never waits. */
    void schedule(Executor executor) {
        if (this.started && this.queued.compareAndSet(false, true)) {
            try {
                executor.execute(this::refresh);
            }
            catch (RejectedExecutionException ex) { // closed
                this.queued.set(false);
            }
        }
    }

    private void refresh() {
        this.queued.set(false);
        Map<String, String> wanted = longHolds();
        if (!this.identity.containsKey("host")) { // resolved here, off the thread that builds the service
            this.identity.put("host", bounded(hostName()));
        }
        try {
            if (!wanted.equals(this.published) || !pexpire()) {
                Map<String, String> all = new LinkedHashMap<>(this.identity);
                all.putAll(wanted);
                write(all);
            }
            this.published = wanted;
        }
        catch (DataAccessException ex) {
            this.published = null; // written whole next time
            if (PermissionRefusals.of(ex) != null && !this.refusalLogged) {
                this.refusalLogged = true; // once: the next refresh meets the same refusal
                logger.warn("Redis refused this service's instance record " + this.name + " (" + PermissionRefusals
                    .of(ex) + "): inspect() will not name this instance's host and application; see requiredAcl()");
                return;
            }
            logger.debug("Could not refresh this instance's record " + this.name + "; next interval tries again", ex);
        }
    }

    /**
     * Writes the whole record with its expiry: one {@code SET ... PX} (at most {@link #MAX_HOLDS} + 5 lines), only when
     * the record is new, was gone, or its long holds changed.
     */
    private void write(Map<String, String> fields) {
        StringBuilder text = new StringBuilder();
        fields.forEach((field, value) -> text.append(field).append(' ').append(value).append('\n'));
        byte[] key = this.name.getBytes(StandardCharsets.UTF_8);
        byte[] value = text.toString().getBytes(StandardCharsets.UTF_8);
        this.redis.execute((RedisCallback<Boolean>) connection -> connection.stringCommands()
            .set(key, value, Expiration.milliseconds(this.expiryMillis), SetOption.upsert())); // SET ... PX
    }

    /** The record's fields, from its lines ({@code <field> <value>}). */
    static Map<String, String> fields(@Nullable String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        if (text != null) {
            for (String line : text.split("\n")) {
                int space = line.indexOf(' ');
                if (space > 0) {
                    fields.put(line.substring(0, space), line.substring(space + 1));
                }
            }
        }
        return fields;
    }

    /** PEXPIRE (the ACL grants it, not EXPIRE): whether the record was there. */
    private boolean pexpire() {
        byte[] raw = this.name.getBytes(StandardCharsets.UTF_8);
        return Boolean.TRUE.equals(this.redis.execute(
                (RedisCallback<Boolean>) connection -> connection.keyCommands().pExpire(raw, this.expiryMillis)));
    }

    /** The hold fields: holds older than one interval, the oldest first, at most {@link #MAX_HOLDS}. */
    private Map<String, String> longHolds() {
        long before = System.currentTimeMillis() - this.intervalMillis;
        List<Map.Entry<String, HeldLock>> old = new ArrayList<>();
        for (Hold hold : this.holds.get()) {
            HeldLock held = hold.snapshot();
            if (held != null && held.since().toEpochMilli() <= before) {
                old.add(Map.entry(hold.ownerToken(), held));
            }
        }
        old.sort(Map.Entry.comparingByValue((a, b) -> a.since().compareTo(b.since())));
        Map<String, String> fields = new LinkedHashMap<>();
        for (Map.Entry<String, HeldLock> entry : old) {
            if (fields.size() == MAX_HOLDS) {
                break;
            }
            fields.putIfAbsent(HOLD_FIELD + entry.getKey(),
                    entry.getValue().since().toEpochMilli() + " " + bounded(entry.getValue().owner()));
        }
        return fields;
    }

    /** What one instance's record says, read for an inspection. */
    record Found(LockInstance instance, Map<String, String> holds) {

        /** The owner and since the record names for {@code ownerToken}, or null. */
        @Nullable String[] hold(String ownerToken) {
            String value = this.holds.get(HOLD_FIELD + ownerToken);
            int space = (value != null) ? value.indexOf(' ') : -1;
            return (space > 0) ? new String[] { value.substring(0, space), value.substring(space + 1) } : null;
        }
    }

    /** Reads the records of {@code ids}: GET and PTTL each. {@code redisNowMillis}: the Redis clock. */
    static Map<String, Found> read(StringRedisTemplate redis, String prefix, Collection<String> ids,
            long redisNowMillis) {
        Map<String, Found> found = new HashMap<>();
        for (String id : new HashSet<>(ids)) {
            String name = name(prefix, id);
            Map<String, String> fields = fields(redis.opsForValue().get(name));
            if (fields.isEmpty()) {
                found.put(id, new Found(new LockInstance(id, null, null, 0, null, null), Map.of()));
                continue;
            }
            byte[] raw = name.getBytes(StandardCharsets.UTF_8);
            Long left = redis.execute((RedisCallback<Long>) connection -> connection.keyCommands().pTtl(raw));
            long expiry = number(fields.get("expiry"));
            Instant lastSeen = (left != null && left > 0 && expiry > 0)
                    ? Instant.ofEpochMilli(redisNowMillis - (expiry - left)) : null;
            long started = number(fields.get("started"));
            found.put(id, new Found(new LockInstance(id, fields.get("host"), fields.get("app"),
                    number(fields.get("pid")), (started > 0) ? Instant.ofEpochMilli(started) : null, lastSeen),
                    fields));
        }
        return found;
    }

    private static long number(@Nullable String text) {
        try {
            return (text != null) ? Long.parseLong(text) : 0;
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (Exception ex) {
            return "unknown";
        }
    }

    /** At most {@link #MAX_OWNER_LENGTH} characters, without control characters. */
    static String bounded(String text) {
        String cut = (text.length() > MAX_OWNER_LENGTH) ? text.substring(0, MAX_OWNER_LENGTH) : text;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
