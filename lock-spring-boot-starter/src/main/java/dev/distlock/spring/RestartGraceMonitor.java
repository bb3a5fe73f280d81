package dev.distlock.spring;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.RestartGraceException;

/**
 * Makes a lock service's restart grace visible: one WARN when the service is first refused a lock because Redis is
 * younger than the grace ({@code distlock.safety.restart-grace}), saying how long ago Redis restarted and when new locks
 * resume, and one INFO when a lock is granted again. Between the two, {@link #state()} gives the grace's time left, for
 * the health details. Only refusals show the grace: a Redis whose grace nobody met stays silent. Costs one volatile read
 * per granted lock.
 */
public final class RestartGraceMonitor implements LockEventListener {

    private static final Log logger = LogFactory.getLog(RestartGraceMonitor.class);

    /** A refusal this long after the last one's estimated end is a new grace (Redis restarted again). */
    private static final long SLACK_NANOS = Duration.ofSeconds(2).toNanos();

    private final Duration grace;

    /** When the grace met last ends, by System.nanoTime(); meaningful while {@link #inGrace}. */
    private volatile long endsNanos;

    private volatile boolean inGrace;

    /** @param grace the restart grace the lock service is built with */
    public RestartGraceMonitor(Duration grace) {
        this.grace = grace;
    }

    /** The restart grace of the lock service this monitor watches. */
    public Duration grace() {
        return this.grace;
    }

    @Override
    public void onEvent(LockEvent event) {
        if (event instanceof LockEvent.AcquireFailed failed
                && failed.reason() instanceof RestartGraceException refusal) {
            refused(refusal);
        }
        else if (event instanceof LockEvent.Acquired) {
            granted();
        }
    }

    private void refused(RestartGraceException refusal) {
        long now = System.nanoTime();
        long previousEnd = this.endsNanos;
        boolean first;
        synchronized (this) {
            first = !this.inGrace || now - previousEnd > SLACK_NANOS;
            this.endsNanos = now + refusal.retryAfter().toNanos();
            this.inGrace = true;
        }
        if (first) {
            logger.warn(describe(this.grace, refusal.retryAfter()) + " distlock grants no new lock while Redis is "
                    + "younger than distlock.safety.restart-grace (" + seconds(this.grace) + " s), since a lease "
                    + "granted before a restart without persistence may still run; waiting acquisitions wait, others "
                    + "fail with RestartGraceException. A Redis known to be new can be declared fresh: see "
                    + "docs/safety-restarts.md.");
        }
    }

    private void granted() {
        if (this.inGrace) {
            boolean ended;
            synchronized (this) {
                ended = this.inGrace;
                this.inGrace = false;
            }
            if (ended) {
                logger.info("Redis restart grace over: distlock grants new locks again.");
            }
        }
    }

    /**
     * The grace as last met, or null when no refusal is pending: {@code resumesIn} (whole seconds, rounded up) and
     * {@code message}.
     */
    public @Nullable Map<String, Object> state() {
        if (!this.inGrace) {
            return null;
        }
        long leftNanos = this.endsNanos - System.nanoTime();
        if (leftNanos <= 0) {
            return null;
        }
        Duration left = Duration.ofNanos(leftNanos);
        Map<String, Object> state = new LinkedHashMap<>();
        state.put("resumesIn", seconds(left) + " s");
        state.put("message", describe(this.grace, left));
        return state;
    }

    /**
     * "Redis restarted N s ago; new locks resume in M s." from the service's grace (zero when unknown) and the time
     * left that Redis reported with a refusal.
     */
    public static String describe(Duration grace, Duration left) {
        long leftSeconds = seconds(left);
        long ago = grace.minus(left).toSeconds();
        // Redis counts its uptime a second short, so the time left may exceed the grace by up to a second.
        String restarted = grace.isZero() ? "Redis restarted recently"
                : "Redis restarted " + Math.max(0, ago) + " s ago";
        return restarted + "; new locks resume in " + leftSeconds + " s.";
    }

    /** Whole seconds, rounded up: what a Retry-After header says. */
    public static long seconds(Duration duration) {
        return Math.max(1, (duration.toMillis() + 999) / 1000);
    }
}
