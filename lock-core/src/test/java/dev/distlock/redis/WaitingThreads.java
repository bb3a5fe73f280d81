package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.test.Await;

/**
 * Waits until a thread that called {@code acquire} sleeps in its wait for a release. Its thread state alone says less:
 * {@code WAITING} also holds while it subscribes to the release channel or awaits the reply of an attempt that has not
 * reached Redis yet, so a test that changes the lock's key then races that attempt.
 */
final class WaitingThreads {

    private WaitingThreads() {
    }

    /** Polls until {@code thread} sleeps in {@code Waiter.await}: queued or refused, waiting to be woken. */
    static void awaitWaitingForARelease(Thread thread, Duration limit) {
        Await.until(limit, () -> waitsForARelease(thread), thread.getName() + " waits for a release");
    }

    static boolean waitsForARelease(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().endsWith(".Waiter") && frame.getMethodName().equals("await")) {
                return true;
            }
        }
        return false;
    }
}
