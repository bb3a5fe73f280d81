package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FAIR;
import static dev.distlock.redis.script.ScriptArgument.FENCING_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.HOLD_ID;
import static dev.distlock.redis.script.ScriptArgument.KEEP_HELD_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PERMITS;
import static dev.distlock.redis.script.ScriptArgument.PERMIT_LIMIT;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.REENTRY;
import static dev.distlock.redis.script.ScriptArgument.RESTART_GRACE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WAITING;
import static dev.distlock.redis.script.ScriptArgument.WATCHDOG;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

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

    static final ScriptLayout<Long> ACQUIRE = ScriptLayout.load("sem-acquire.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            LEASE_MILLIS, WATCHDOG, REENTRY, RESTART_GRACE_MILLIS, TOKEN_RETENTION_MILLIS, PERMIT_LIMIT, PERMITS, FAIR,
            PLACE_LEASE_MILLIS, WAITING, CHANNEL, PUBLISH_COMMAND);

    static final ScriptLayout<Long> RELEASE = ScriptLayout.load("sem-release.lua", Long.class, OWNER_TOKEN, HOLD_ID,
            FENCING_TOKEN, WATCHDOG, KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND, MESSAGE);

    static final ScriptLayout<Long> LEAVE = ScriptLayout.load("sem-leave.lua", Long.class, OWNER_TOKEN, CHANNEL,
            PUBLISH_COMMAND);

    @SuppressWarnings("rawtypes")
    static final ScriptLayout<List> RENEW = ScriptLayout.load("sem-renew.lua", List.class, LEASE_MILLIS, OWNER_TOKEN);

    private final boolean fair;

    private final String limit;

    private final String permits;

    private final int permitCount;

    /** The service's instance: one permit of one (what the start-up access check takes). */
    SemaphoreLock(Context context, boolean fair) {
        this(context, fair, 1, 1);
    }

    private SemaphoreLock(Context context, boolean fair, int limit, int permits) {
        super(context);
        this.fair = fair;
        this.limit = Integer.toString(limit);
        this.permits = Integer.toString(permits);
        this.permitCount = permits;
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
                    queue(hold), places(hold)), hold.ownerToken(), grant,
                    LockScripts.grantArguments(ACQUIRE, hold.ownerToken(), grant)
                        .set(TOKEN_RETENTION_MILLIS, this.context.tokenRetentionMillis())
                        .set(PERMIT_LIMIT, this.limit)
                        .set(PERMITS, this.permits)
                        .set(FAIR, this.fair ? "1" : "0")
                        .set(PLACE_LEASE_MILLIS, placeLease)
                        .set(WAITING, grant.waitingFlag())
                        .set(CHANNEL, hold.releaseChannel())
                        .set(PUBLISH_COMMAND, publishCommand()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return this.context.scripts()
            .call(RELEASE.script(), List.of(leases(hold), permits(hold), holder(hold), queue(hold)),
                    LockScripts.releaseArguments(RELEASE, hold.ownerToken(), release,
                            this.context.tokenRetentionMillis(), hold.releaseChannel(), publishCommand())
                        .set(MESSAGE, this.context.clientId())
                        .toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, String leaseMillis) {
        List<String> keys = new ArrayList<>(3 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(leases(hold));
            keys.add(permits(hold));
            keys.add(holder(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewals().batch(RENEW, keys, tokens, leaseMillis);
    }

    @Override
    public boolean leave(LockTarget hold) {
        if (!this.fair) {
            return false;
        }
        return this.context.scripts()
            .run(LEAVE.script(), List.of(queue(hold), places(hold)), LEAVE.newArguments()
                .set(OWNER_TOKEN, hold.ownerToken())
                .set(CHANNEL, hold.releaseChannel())
                .set(PUBLISH_COMMAND, publishCommand())
                .toArray()) == 1;
    }

    /**
     * A plain semaphore's release wakes as many waiters as it freed permits (its message names them). A fair one's
     * wakes every waiter: only the first in the queue in Redis may take permits, which this process's order of waiters
     * does not know.
     */
    @Override
    public WakeUp wakeUp() {
        return this.fair ? WakeUp.ALL : WakeUp.PERMITS;
    }

    @Override
    public int releaseWakes() {
        return this.permitCount;
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
