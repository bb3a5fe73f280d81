package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.redis.script.LockType;

/**
 * The engine's one place where a lease, kept in nanoseconds, becomes the text of milliseconds the scripts take; the
 * watchdog lease's text is made once.
 */
final class LeaseText {

    private final long watchdogNanos;

    private final String watchdogMillis;

    LeaseText(Duration watchdogLease) {
        this.watchdogNanos = watchdogLease.toNanos();
        this.watchdogMillis = Long.toString(watchdogLease.toMillis());
    }

    /** The grant one script call asks for: a lease of {@code leaseNanos}. */
    LockType.Grant grant(String holdId, long leaseNanos, boolean watchdog, boolean reentry, boolean waiting) {
        String millis = (leaseNanos == this.watchdogNanos) ? this.watchdogMillis
                : Long.toString(TimeUnit.NANOSECONDS.toMillis(leaseNanos));
        return new LockType.Grant(holdId, millis, watchdog, reentry, waiting);
    }
}
