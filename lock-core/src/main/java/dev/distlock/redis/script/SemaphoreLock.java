package dev.distlock.redis.script;

import static dev.distlock.redis.script.ScriptArgument.CHANNEL;
import static dev.distlock.redis.script.ScriptArgument.FAIR;
import static dev.distlock.redis.script.ScriptArgument.MESSAGE;
import static dev.distlock.redis.script.ScriptArgument.OWNER_TOKEN;
import static dev.distlock.redis.script.ScriptArgument.PERMITS;
import static dev.distlock.redis.script.ScriptArgument.PERMIT_LIMIT;
import static dev.distlock.redis.script.ScriptArgument.PLACE_LEASE_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.PUBLISH_COMMAND;
import static dev.distlock.redis.script.ScriptArgument.TOKEN_RETENTION_MILLIS;
import static dev.distlock.redis.script.ScriptArgument.WAITING;

import java.time.Duration;
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

    private final boolean fair;

    /** The limit and permits as sent: formatted once per view, not per call (a waiter sends them again). */
    private final String limit;

    private final String permits;

    private final int permitCount;

    private final LockKeys names;

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
        this.names = context.keys();
    }

    @Override
    public LockType forOptions(LockOptions options) {
        return new SemaphoreLock(this.context, this.fair, options.permitLimit(), options.permits());
    }

    @Override
    public String releaseChannel(String key) {
        return this.names.name(key, "sem:released");
    }

    @Override
    public ScriptCall acquireCall(LockTarget hold, Grant grant) {
        Duration placeLease = (this.fair && grant.waiting()) ? this.context.waiterLease() : Duration.ZERO;
        return LockCalls.grant(this.context.scripts(), Scripts.SEM_ACQUIRE, List.of(leases(hold), permits(hold),
                holder(hold), this.names.name(hold, "sem:fence"), queue(hold), places(hold)),
                LockCalls.grantArguments(Scripts.SEM_ACQUIRE, hold.ownerToken(), grant)
                    .setMillis(TOKEN_RETENTION_MILLIS, this.context.tokenRetention())
                    .set(PERMIT_LIMIT, this.limit)
                    .set(PERMITS, this.permits)
                    .set(FAIR, this.fair)
                    .setMillis(PLACE_LEASE_MILLIS, placeLease)
                    .set(WAITING, grant.waiting())
                    .set(CHANNEL, hold.releaseChannel())
                    .set(PUBLISH_COMMAND, this.context.pubSub().publishCommand()));
    }

    @Override
    public ScriptCall releaseCall(LockTarget hold, Release release) {
        return LockCalls.call(this.context.scripts(), Scripts.SEM_RELEASE, List.of(leases(hold), permits(hold),
                holder(hold), queue(hold)),
                LockCalls.releaseArguments(Scripts.SEM_RELEASE, hold.ownerToken(), release,
                        this.context.tokenRetention(), hold.releaseChannel(), this.context.pubSub().publishCommand())
                    .set(MESSAGE, this.context.clientId())
                    .toArray());
    }

    @Override
    RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos) {
        List<String> keys = new ArrayList<>(3 * holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (LockTarget hold : holds) {
            keys.add(leases(hold));
            keys.add(permits(hold));
            keys.add(holder(hold));
            tokens.add(hold.ownerToken());
        }
        return this.context.scripts().renewals().batch(Scripts.SEM_RENEW, keys, tokens, leaseNanos);
    }

    @Override
    public boolean leave(LockTarget hold) {
        if (!this.fair) {
            return false;
        }
        return LockCalls.call(this.context.scripts(), Scripts.SEM_LEAVE, List.of(queue(hold), places(hold)),
                Scripts.SEM_LEAVE.newArguments()
                    .set(OWNER_TOKEN, hold.ownerToken())
                    .set(CHANNEL, hold.releaseChannel())
                    .set(PUBLISH_COMMAND, this.context.pubSub().publishCommand())
                    .toArray())
            .run() == 1;
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
        return List.of(leases(hold), permits(hold), holder(hold), this.names.name(hold, "sem:fence"), queue(hold),
                places(hold));
    }

    private String leases(LockTarget hold) {
        return this.names.name(hold, "sem:leases");
    }

    private String permits(LockTarget hold) {
        return this.names.name(hold, "sem:permits");
    }

    private String holder(LockTarget hold) {
        return this.names.name(hold, "sem:holder:" + hold.ownerToken());
    }

    private String queue(LockTarget hold) {
        return this.names.name(hold, "sem:queue");
    }

    private String places(LockTarget hold) {
        return this.names.name(hold, "sem:places");
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
