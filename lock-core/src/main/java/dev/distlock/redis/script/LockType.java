package dev.distlock.redis.script;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

import dev.distlock.LockMode;
import dev.distlock.LockOptions;

/**
 * How one type of lock lives in Redis: its keys, its scripts, and whom a release wakes. Every key of one lock carries
 * the hash tag {@code {key}}, so that each lock lives in one Redis Cluster slot. The scripts answer as acquire.lua and
 * release.lua do, so that the service handles every type alike.
 */
public abstract class LockType {

    /** Whom a release message wakes among a process's waiters on the lock's channel. */
    public enum WakeUp {
        /** One waiter; a wake-up it does not use passes to the next. */
        ONE,
        /** Every waiter, for releases after which several may proceed (readers). */
        ALL,
        /** Only the waiter whose owner token is the message (the head of a fair queue). */
        NAMED,
        /**
         * As many waiters as the release freed permits ({@link #releaseWakes()}; the message names them after the
         * client id), and one more after each woken waiter that took permits (a semaphore: see KeyWaiters).
         */
        PERMITS
    }

    public final Context context;

    LockType(Context context) {
        this.context = context;
    }

    public abstract String releaseChannel(String key);

    /** This type as one call's options ask for it: a semaphore with their limit and permits; a lock type itself. */
    public LockType forOptions(LockOptions options) {
        return this;
    }

    /**
     * Takes or re-enters the lock.
     *
     * @return the fencing token ({@code > 0}) when granted, {@code 0} when a {@link Grant#reentry()} found the
     * owner's hold gone, else {@code -1 - ms until it is worth trying again}
     */
    public final long acquire(LockTarget hold, Grant grant) {
        return acquireCall(hold, grant).run();
    }

    /** The script call of {@link #acquire}, to run with or without blocking. */
    public abstract ScriptCall acquireCall(LockTarget hold, Grant grant);

    /** Releases one hold: answers {@link ScriptReplies#FREED}, {@link ScriptReplies#STILL_HELD}, ... */
    public final long release(LockTarget hold, Release release) {
        return releaseCall(hold, release).run();
    }

    /** The script call of {@link #release}, to run with or without blocking. */
    public abstract ScriptCall releaseCall(LockTarget hold, Release release);

    /**
     * Ends the owner's last hold and grants the lock to {@code next} in one call (exclusive locks only): see
     * handoff.lua. {@code lastOfRun}: the process handed it on so often in a row that it hands it
     * on only when nobody else waits.
     *
     * @return the new fencing token ({@code > 0}), or a code saying why nothing was handed off
     */
    public final long handOff(LockTarget hold, Release release, LockTarget next, Grant grant, boolean lastOfRun) {
        return handOffCall(hold, release, next, grant, lastOfRun).run();
    }

    /** The script call of {@link #handOff}. */
    public ScriptCall handOffCall(LockTarget hold, Release release, LockTarget next, Grant grant, boolean lastOfRun) {
        throw new UnsupportedOperationException("Only exclusive locks are handed off");
    }

    /** Whether {@link #handOff} works for this type. */
    public boolean handsOff() {
        return false;
    }

    /**
     * The start-up check's first step: runs access-check.lua on this type's first key and release channel, which
     * fails with NOPERM naming the first command (or the channel) the Redis user may not use.
     */
    public final void checkAccess(LockTarget probe) {
        ScriptLayout<Long> check = Scripts.ACCESS_CHECK;
        new ScriptCall(this.context.scripts().runner(), check.script(), List.of(keys(probe).get(0)),
                check.newArguments()
                    .set(ScriptArgument.CHANNEL, probe.releaseChannel())
                    .set(ScriptArgument.PUBLISH_COMMAND, this.context.pubSub().publishCommand())
                    .toArray())
            .run();
    }

    /** Every Redis key a hold of this type may use: for removing the start-up check's probe lock. */
    public abstract List<String> keys(LockTarget hold);

    /**
     * Renews a batch of holds of this type in one slot: per hold, {@link ScriptReplies#RENEWED},
     * {@link ScriptReplies#NOT_HELD_BY_OWNER} or {@link ScriptReplies#NOT_RENEWED}.
     */
    public final int[] renew(List<? extends LockTarget> holds, long leaseNanos) {
        return renewal(holds, leaseNanos).run();
    }

    /**
     * {@link #renew} without waiting, on the connection every lock call and the service's {@code WAIT} use, so that
     * many batches are in flight at once; only where {@link #renewsAsync()}. The future completes on a Redis client
     * thread.
     */
    public final CompletableFuture<int[]> renewAsync(List<? extends LockTarget> holds, long leaseNanos) {
        return renewal(holds, leaseNanos).runAsync();
    }

    /** Whether {@link #renewAsync} can run: on the Lettuce factory's shared connection, see RenewalScripts. */
    public final boolean renewsAsync() {
        return this.context.scripts().renewals().sendsAsync();
    }

    /** The script call that renews a batch of holds of this type in one slot. */
    abstract RenewalScripts.Call renewal(List<? extends LockTarget> holds, long leaseNanos);

    /**
     * A waiter gives up without the lock: gives up the place it kept in Redis, if the type keeps one.
     *
     * @return whether local waiters should check again (the place held them back)
     */
    public boolean leave(LockTarget hold) {
        return false;
    }

    public WakeUp wakeUp() {
        return WakeUp.ONE;
    }

    /** How many waiters a release of one hold of this type wakes, for {@link WakeUp#PERMITS}. */
    public int releaseWakes() {
        return 1;
    }

    /** Whether a waiter keeps a place in Redis that lapses unless it refreshes it by trying again. */
    public boolean keepsPlace() {
        return false;
    }

    /** The mode whose hold of the same owner and key shares this one's owner token, or null. */
    public @Nullable LockMode sharesOwnerTokenWith() {
        return null;
    }

    /**
     * One acquisition's request.
     *
     * @param holdId the acquisition's id within its hold, so that a retried call never counts twice
     * @param leaseNanos its lease
     * @param watchdog whether the watchdog renews it (otherwise the lease is fixed)
     * @param reentry whether it re-enters the owner's open hold, which it may only do while Redis still has that hold
     * @param waiting whether the caller waits if refused, so that it keeps a place in Redis (a queue place or a
     * write intent) where the type has one
     */
    public record Grant(String holdId, long leaseNanos, boolean watchdog, boolean reentry, boolean waiting) {
    }

    /**
     * One acquisition's release.
     *
     * @param holdId the acquisition's id within its hold
     * @param fencingToken the token of the owner's grant, which recognises a retried release after others took the
     * lock
     * @param watchdog whether the watchdog renewed the acquisition
     * @param keepHeldNanos 0 to free the lock now, else how long to keep it held when this is the owner's last hold
     */
    public record Release(String holdId, long fencingToken, boolean watchdog, long keepHeldNanos) {
    }

    /**
     * What every lock type of one service needs.
     *
     * @param tokenRetention how long the last fencing token, or a released hold's mark, outlives a free lock
     * @param waiterLease how long a waiter's place (a fair queue place, a write intent) lasts unless refreshed
     */
    public record Context(LockKeys keys, LockScripts scripts, String clientId, Duration tokenRetention,
            Duration waiterLease, ShardedPubSub pubSub) {
    }
}
