package dev.distlock.internal;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** The daemon threads of the services: named by their job and numbered, so that a thread dump says whose they are. */
public final class DaemonThreads {

    private static final AtomicInteger count = new AtomicInteger();

    private DaemonThreads() {
    }

    /** Makes daemon threads named {@code prefix} followed by a number unique in this JVM. */
    public static ThreadFactory named(String prefix) {
        return task -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
