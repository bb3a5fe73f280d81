package dev.distlock.redis;

/**
 * The owner of one semaphore acquisition's permits: equal only to itself, so that no acquisition re-enters another's
 * permits. It reads as the caller it stands for (the calling thread, by default) in {@link dev.distlock.HeldLock}.
 */
final class PermitHolder {

    private final String caller;

    PermitHolder(Object caller) {
        this.caller = (caller instanceof Thread thread) ? "thread " + thread.getName() : "a non-blocking call";
    }

    @Override
    public String toString() {
        return this.caller;
    }
}
