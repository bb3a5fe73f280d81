package dev.distlock.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.internal.DaemonThreads;

/**
 * What the non-blocking calls of one service run on: the timer of their pauses and release retries, the thread they
 * subscribe on (both started on first need), the clean-up thread, and the calls still pending, which {@link #close()}
 * completes.
 */
final class AsyncThreads {

    private static final Log logger = LogFactory.getLog(ServiceLog.NAME); // logged as the service

    /** A non-blocking call not yet completed. */
    interface Pending {

        /** The service was closed: the call completes at once, as waiting threads stop. */
        void serviceClosed();
    }

    private final Executor cleanUp;

    /** Times the waits of non-blocking acquisitions and retries of their releases; started on first need. */
    private volatile @Nullable ScheduledThreadPoolExecutor timer;

    /** Subscribes for non-blocking waiters, off the timer, so that a slow subscription delays no pause or timeout. */
    private volatile @Nullable ThreadPoolExecutor subscribing;

    private final Executor subscriber = this::subscribe;

    private final Set<Pending> pending = ConcurrentHashMap.newKeySet();

    private volatile boolean closed;

    /** @param cleanUp the service's clean-up thread (Redis calls off a Redis client thread) */
    AsyncThreads(Executor cleanUp) {
        this.cleanUp = cleanUp;
    }

    /** Runs a task on the clean-up thread; nothing once closed. */
    void cleanUp(Runnable task) {
        this.cleanUp.execute(task);
    }

    boolean isClosed() {
        return this.closed;
    }

    /** Counts a call pending until {@link #done}. */
    void started(Pending call) {
        this.pending.add(call);
    }

    void done(Pending call) {
        this.pending.remove(call);
    }

    /**
     * Where non-blocking waiters subscribe: one thread, started on first need, since subscribing waits for Redis.
     * Once the service is closed nothing subscribes any more; {@link #close()} completes the waiting calls.
     */
    Executor subscriber() {
        return this.subscriber;
    }

    private void subscribe(Runnable task) {
        ThreadPoolExecutor executor = this.subscribing;
        if (executor == null) {
            synchronized (this) {
                executor = this.subscribing;
                if (executor == null) {
                    executor = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                            DaemonThreads.named("distlock-subscribe-"));
                    executor.allowCoreThreadTimeOut(true);
                    if (this.closed) {
                        executor.shutdown();
                    }
                    this.subscribing = executor;
                }
            }
        }
        try {
            executor.execute(task);
        }
        catch (RejectedExecutionException ex) {
            logger.debug("Not subscribing: the service is closed");
        }
    }

    /**
     * The timer of non-blocking calls: their pauses between attempts and release retries. Its tasks only send
     * commands without waiting, so that one thread serves any number of calls.
     */
    ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor current = this.timer;
        if (current == null) {
            synchronized (this) {
                current = this.timer;
                if (current == null) {
                    current = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("distlock-async-"));
                    current.setRemoveOnCancelPolicy(true);
                    if (this.closed) {
                        current.shutdown();
                    }
                    this.timer = current;
                }
            }
        }
        return current;
    }

    /** Stops the timer and the subscribing thread. */
    void close() {
        this.closed = true;
        synchronized (this) {
            ScheduledThreadPoolExecutor current = this.timer;
            if (current != null) {
                current.shutdownNow();
            }
            if (this.subscribing != null) {
                this.subscribing.shutdownNow();
            }
        }
    }

    /** Completes every call still pending: whatever its timer would have run next is gone. */
    void closePending() {
        for (Pending call : this.pending) {
            call.serviceClosed();
        }
    }
}
