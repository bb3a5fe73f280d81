package dev.distlock.redis;

/**
 * The end of one waiting call's wait: the time left, whether a time comes after it, and the one last look at Redis a
 * call takes when its wait ends without an answer of Redis to end it on.
 */
final class WaitDeadline {

    private final long startNanos;

    private final long waitNanos;

    /** Whether the call asked Redis once more as its wait ended behind others or holding back ({@link #askAtEnd}). */
    private boolean askedAtEnd;

    /** A wait of {@code waitNanos} from {@code startNanos} (a {@link System#nanoTime()}). */
    WaitDeadline(long startNanos, long waitNanos) {
        this.startNanos = startNanos;
        this.waitNanos = waitNanos;
    }

    /** The time left, in nanoseconds: 0 or less once the wait is over. */
    long remainingNanos() {
        return this.waitNanos - (System.nanoTime() - this.startNanos);
    }

    /** Whether {@code nanos} (a {@link System#nanoTime()}) comes after the wait's end. */
    boolean endsBefore(long nanos) {
        return nanos - (this.startNanos + this.waitNanos) > 0;
    }

    /**
     * Whether the wait ends now without an answer of Redis to end it on (the call waited behind others, or held back
     * for a local holder or a hand-off): it asks Redis once more, so that "held" is Redis's answer and an outage is
     * reported as such, never the local queue's belief. True once; after an attempt, a refusal ends the wait itself.
     */
    boolean askAtEnd(long remaining) {
        if (remaining > 0 || this.askedAtEnd) {
            return false;
        }
        this.askedAtEnd = true;
        return true;
    }
}
