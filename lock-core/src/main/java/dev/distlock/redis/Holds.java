package dev.distlock.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.KeyText;
import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.internal.Listeners;
import dev.distlock.redis.lease.Hold.HoldKey;
import dev.distlock.redis.lease.Hold;
import dev.distlock.redis.lease.LeaseHolder;
import dev.distlock.redis.lease.LeaseWatchdog;

/** The open holds of one service, by owner, key and type, and where their loss is reported. */
final class Holds {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    private final ConcurrentHashMap<HoldKey, Hold> holds = new ConcurrentHashMap<>();

    private final LockEventListener listener;

    private @Nullable LeaseWatchdog watchdog;

    private final boolean logKeys;

    Holds(LockEventListener listener, boolean logKeys) {
        this.listener = listener;
        this.logKeys = logKeys;
    }

    /** A failure's message as a log line: with the key, or with the lock's name instead (see logKeys). */
    String logLine(LockException failure, @Nullable String name) {
        return KeyText.forLog(failure.getMessage(), failure.key(), (name != null) ? name : "unnamed", this.logKeys);
    }

    /** The watchdog that renews these holds (it reports losses here, so it is built after). */
    void watchedBy(LeaseWatchdog watchdog) {
        this.watchdog = watchdog;
    }

    @Nullable Hold get(HoldKey key) {
        return this.holds.get(key);
    }

    /** The holds now, a live view. */
    Collection<Hold> values() {
        return this.holds.values();
    }

    /** Registers a newly granted hold, unless the owner has another that is not over. */
    void add(Hold hold) {
        this.holds.merge(hold.holdKey(), hold, (old, mine) -> old.isOver() ? mine : old);
    }

    /**
     * Why a lock was not held at its release: its lease ran out, or, before the lease could have run out (by this
     * process's deadline, which ends no later than Redis's), the lock was gone from Redis: a restart or failover
     * most likely.
     */
    static LeaseLostException goneAtRelease(Hold hold) {
        long leftNanos = hold.deadlineNanos() - System.nanoTime();
        if (leftNanos <= 0) {
            return new LeaseLostException(hold.key(), "Lock " + KeyText.quote(hold.key())
                    + " was no longer held at release: its lease ran out before the holder released it");
        }
        return new LeaseLostException(hold.key(), "Lock " + KeyText.quote(hold.key()) + " was gone from Redis at "
                + "release, " + TimeUnit.NANOSECONDS.toMillis(leftNanos) + " ms before its lease could have run out: "
                + "Redis most likely restarted without its data or failed over to a replica that had not received it "
                + "(else the key was deleted or evicted)");
    }

    /** Reports a lost lease once: stops renewing it, logs it, and tells the listener, then the holder's callbacks. */
    void lose(Hold hold, LeaseLostException reason) {
        lose(hold, reason, Runnable::run);
    }

    /**
     * {@link #lose(Hold, LeaseLostException)}, logging it and telling the listener and the callbacks through
     * {@code notifications} (the watchdog's {@link dev.distlock.redis.lease.LeaseNotifier}: a log that blocks must not
     * keep the watchdog from renewing the other locks); the hold is lost before this returns.
     */
    void lose(Hold hold, LeaseLostException reason, Executor notifications) {
        forget(hold);
        if (hold.markLost(reason)) {
            LeaseHolder first = hold.firstHandle();
            String line = logLine(reason, (first != null) ? first.name() : null);
            notifications.execute(() -> {
                logger.warn(line);
                if (first != null) {
                    Listeners.emit(this.listener, new LockEvent.LeaseLost(first, reason));
                }
                hold.runLostCallbacks(reason);
            });
        }
    }

    /** Stops renewing and tracking a hold that ended. */
    void forget(Hold hold) {
        this.holds.remove(hold.holdKey(), hold);
        unwatch(hold);
    }

    void unwatch(Hold hold) {
        LeaseWatchdog current = this.watchdog;
        if (current != null) {
            current.unwatch(hold);
        }
    }

    /** What the holds are now, oldest first; see {@link RedisLockService#heldLocks()}. */
    List<HeldLock> snapshot() {
        List<HeldLock> held = new ArrayList<>();
        for (Hold hold : this.holds.values()) {
            HeldLock lock = hold.snapshot();
            if (lock != null) {
                held.add(lock);
            }
        }
        held.sort(Comparator.comparing(HeldLock::since).thenComparing(HeldLock::key));
        return Collections.unmodifiableList(held);
    }
}
