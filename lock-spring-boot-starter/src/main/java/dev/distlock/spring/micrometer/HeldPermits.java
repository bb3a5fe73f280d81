package dev.distlock.spring.micrometer;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LockHandle;

/**
 * The permits held now under one {@code name} and {@code mode} tag pair: the value of one
 * {@value LockMetrics#PERMITS_HELD} gauge. A handle counts while it is {@linkplain LockHandle#isHeld() held}, so a
 * fixed lease left to run out stops counting at its deadline even though no event says so. Thread-safe; reading it
 * never calls Redis.
 */
final class HeldPermits {

    /** Permits per open handle (handles compare by identity). */
    private final Map<LockHandle, Integer> handles = new ConcurrentHashMap<>();

    void add(LockHandle handle, int permits) {
        this.handles.put(handle, permits);
    }

    void remove(LockHandle handle) {
        this.handles.remove(handle);
    }

    /** The permits of the handles still held. */
    double inUse() {
        int sum = 0;
        for (Map.Entry<LockHandle, Integer> entry : this.handles.entrySet()) {
            if (entry.getKey().isHeld()) {
                sum += entry.getValue();
            }
        }
        return sum;
    }
}
