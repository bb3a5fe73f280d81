package dev.distlock.redis.script;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.core.script.RedisScript;

import dev.distlock.LockOptions;

/**
 * A permit semaphore, plain or fair. Its Redis structures: {@code <prefix>:{key}:sem:leases} (a sorted set of holder
 * tokens by lease end), {@code <prefix>:{key}:sem:permits} (a hash: holder token to its permits, {@code count} = their
 * sum, {@code waiting} = a refused caller waits), one hash per holder {@code <prefix>:{key}:sem:holder:<token>} (its
 * hold ids and fencing token, as a reader's hash), {@code <prefix>:{key}:sem:fence} (the last fencing token), and for
 * fair waiters {@code <prefix>:{key}:sem:queue} and {@code <prefix>:{key}:sem:places} (as the fair lock's). A plain
 * and a fair semaphore of one key share them: they are one semaphore (sem-acquire.lua, sem-release.lua,
 * sem-renew.lua, sem-leave.lua).
 *
 * <p>Every acquisition is its own holder, never reentrant. The limit and the permits asked for travel with the call:
 * the service's instance ({@link #forOptions}) is a view carrying them, equal to the service's instance so that the
 * watchdog batches every holder's renewal together.
 */
final class SemaphoreLock extends LockType {

    private static final RedisScript<Long> ACQUIRE = LockScripts.load("sem-acquire.lua", Long.class);

    private static final RedisScript<Long> RELEASE = LockScripts.load("sem-release.lua", Long.class);

    private static final RedisScript<Long> LEAVE = LockScripts.load("sem-leave.lua", Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> RENEW = LockScripts.load("sem-renew.lua", List.class);

    private final boolean fair;

    private final String limit;

    private final String permits;

    /** The service's instance: one permit of one (what the start-up access check takes). */
    SemaphoreLock(Context context, boolean fair) {
        this(context, fair, 1, 1);
    }

    private SemaphoreLock(Context context, boolean fair, int limit, int permits) {
        super(context);
        this.fair = fair;
        this.limit = Integer.toString(limit);
        this.permits = Integer.toString(permits);
    }

    @Override
    public LockType forOptions(LockOptions options) {
        return new SemaphoreLock(this.context, this.fair, options.permitLimit(), options.permits());
    }

    @Override
    public String releaseChannel(String key) {
        return this.context.keys().name(key, "sem:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        String placeLease = (this.fair && grant.waiting()) ? this.context.waiterLeaseMillis() : "0";
        return this.context.scripts()
            .grantCall(ACQUIRE, List.of(leases(hold), permits(hold), holder(hold), name(hold, "sem:fence"),
                    queue(hold), places(hold)), hold.ownerToken(), grant.holdId(), grant.leaseMillis(),
                    this.context.tokenRetentionMillis(), grant.watchdogFlag(), grant.reentryFlag(), this.limit,
                    this.permits, this.fair ? "1" : "0", placeLease, grant.waitingFlag(), hold.releaseChannel(),
                    publishCommand());
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(RELEASE, List.of(leases(hold), permits(hold), holder(hold), queue(hold)), hold.ownerToken(),
                    release.holdId(), hold.releaseChannel(), this.context.clientId(),
                    this.context.tokenRetentionMillis(), release.keepHeldMillis(), publishCommand(),
                    release.watchdogFlag());
    }

    @Override
    public int[] renew(List<? extends LockTarget> holds, String leaseMillis) {
        List<String> keys = new ArrayList<>(3 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(leases(hold));
            keys.add(permits(hold));
            keys.add(holder(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewBatch(RENEW, keys, tokens, leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        if (!this.fair) {
            return false;
        }
        return this.context.scripts()
            .run(LEAVE, List.of(queue(hold), places(hold)), hold.ownerToken(), hold.releaseChannel(),
                    publishCommand()) == 1;
    }

    /** Every waiter checks again: a release may free permits for several. */
    @Override
    public WakeUp wakeUp() {
        return WakeUp.ALL;
    }

    @Override
    public boolean keepsPlace() {
        return this.fair;
    }

    @Override
    public List<String> keys(LockTarget hold) {
        return List.of(leases(hold), permits(hold), holder(hold), name(hold, "sem:fence"), queue(hold),
                places(hold));
    }

    private String leases(LockTarget hold) {
        return name(hold, "sem:leases");
    }

    private String permits(LockTarget hold) {
        return name(hold, "sem:permits");
    }

    private String holder(LockTarget hold) {
        return name(hold, "sem:holder:" + hold.ownerToken());
    }

    private String queue(LockTarget hold) {
        return name(hold, "sem:queue");
    }

    private String places(LockTarget hold) {
        return name(hold, "sem:places");
    }

    /** Views of one service's semaphore are one type: the watchdog batches their holders together. */
    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof SemaphoreLock that && this.fair == that.fair && this.context == that.context;
    }

    @Override
    public int hashCode() {
        return Objects.hash(SemaphoreLock.class, this.fair, System.identityHashCode(this.context));
    }
}
