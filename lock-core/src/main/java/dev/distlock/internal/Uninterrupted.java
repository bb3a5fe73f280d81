package dev.distlock.internal;

/**
 * Runs clean-up on a thread that may have been interrupted. The Redis client refuses to wait for a reply on an
 * interrupted thread, so the flag is cleared for the call and set again afterwards.
 */
public final class Uninterrupted {

    private Uninterrupted() {
    }

    public static void run(Runnable cleanUp) {
        boolean interrupted = Thread.interrupted();
        try {
            cleanUp.run();
        }
        finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
