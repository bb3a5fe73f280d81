package dev.distlock.bench.clients;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

import dev.distlock.redis.RedisLockService;

/** The lock implementations compared, each with how to open a client of it. */
public enum Implementation {

    DISTLOCK("distlock", "RedisLockService, default options (watchdog lease)", true, DistlockClient::new, null),

    REDISSON("redisson", "RLock.tryLock(wait, unit), no lease (watchdog)", true, RedissonLockClient::new, null),

    SPRING_INTEGRATION("spring-integration", "RedisLockRegistry PUB_SUB_LOCK + renewal scheduler", true,
            SpringIntegrationLockClient::new, null),

    RAW("raw-floor", "SET NX PX + EVALSHA compare-and-delete, immediate retry", false, RawSetNxClient::new, null),

    FENCED("fenced-floor", "the cheapest lock with a fencing token: one script SET NX PX + INCR of a counter key, "
            + "EVALSHA compare-and-delete, immediate retry (scenarios 1 and 2 only)", false, FencedFloorClient::new, null,
            "1", "2"),

    RAW_ASYNC("raw-floor-async", "Lettuce async SET NX PX + EVALSHA compare-and-delete on one connection, immediate "
            + "retry, non-blocking (scenario 7 only)", false, null, RawAsyncClient::new),

    FENCED_ASYNC("fenced-floor-async", "the fenced floor's two scripts on Lettuce async, one connection, immediate "
            + "retry, non-blocking (scenario 7 only)", false, null, FencedFloorAsyncClient::new, "7"),

    DISTLOCK_ASYNC("distlock-async", "LockService.async().acquire(key, defaults) + LockHandle.releaseAsync() "
            + "(watchdog lease), non-blocking", true, null, DistlockAsyncClient::new),

    REDISSON_ASYNC("redisson-async", "RLock.tryLockAsync(wait, -1, unit, threadId) + unlockAsync(threadId), a thread "
            + "id per cycle chain (watchdog), non-blocking", true, null, RedissonAsyncClient::new);

    private final String label;

    private final String description;

    private final boolean watchdog;

    private final Function<ClientSettings, LockClient> opener;

    private final Function<ClientSettings, AsyncLockClient> asyncOpener;

    private final List<String> onlyIn;

    Implementation(String label, String description, boolean watchdog, Function<ClientSettings, LockClient> opener,
            Function<ClientSettings, AsyncLockClient> asyncOpener, String... onlyIn) {
        this.label = label;
        this.description = description;
        this.watchdog = watchdog;
        this.opener = opener;
        this.asyncOpener = asyncOpener;
        this.onlyIn = List.of(onlyIn);
    }

    /** The short name used in tables and on the command line. */
    public String label() {
        return this.label;
    }

    public String description() {
        return this.description;
    }

    /** Whether it keeps leases alive while a lock is held (the raw floor uses a fixed lease). */
    public boolean hasWatchdog() {
        return this.watchdog;
    }

    /** Whether a scenario that covers its kind runs it: a reference kept to a few scenarios says no to the others. */
    public boolean runsIn(String scenarioId) {
        return this.onlyIn.isEmpty() || this.onlyIn.contains(scenarioId);
    }

    /** Whether it is a non-blocking API, run only by the async scenarios ({@link #openAsync}). */
    public boolean isAsync() {
        return this.asyncOpener != null;
    }

    /** Opens a new blocking client: new connections and threads of its own. */
    public LockClient open(ClientSettings settings) {
        if (this.opener == null) {
            throw new IllegalStateException(this.label + " is non-blocking: open it with openAsync");
        }
        return this.opener.apply(settings);
    }

    /** Opens a new non-blocking client: new connections and threads of its own. */
    public AsyncLockClient openAsync(ClientSettings settings) {
        if (this.asyncOpener == null) {
            throw new IllegalStateException(this.label + " is blocking: open it with open");
        }
        return this.asyncOpener.apply(settings);
    }

    /** Parses a comma-separated list of labels. */
    public static List<Implementation> parse(String labels) {
        return Arrays.stream(labels.split(","))
            .map(String::trim)
            .filter(label -> !label.isEmpty())
            .map(Implementation::byLabel)
            .collect(Collectors.toList());
    }

    private static Implementation byLabel(String label) {
        for (Implementation implementation : values()) {
            if (implementation.label.equalsIgnoreCase(label)
                    || implementation.name().equalsIgnoreCase(label.replace('-', '_').toUpperCase(Locale.ROOT))) {
                return implementation;
            }
        }
        throw new IllegalArgumentException("unknown implementation '" + label + "'; known: "
                + Arrays.stream(values()).map(Implementation::label).collect(Collectors.joining(", ")));
    }
}
