package dev.distlock.redis.lease;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.internal.DaemonThreads;
import dev.distlock.internal.Listeners;

/**
 * Runs what the watchdog tells user code (listener events, lease-lost callbacks) on a thread of its own, in order, so
 * that a listener or callback that blocks delays later notifications, never renewal. One daemon thread per service,
 * started on first need. While the thread is held up, the renewals it has not reported yet add up into one
 * {@link LockEvent.Renewed}, so a stuck listener costs memory for its losses and failures only.
 */
public final class LeaseNotifier implements Executor, AutoCloseable {

    private static final Log logger = LogFactory.getLog(LeaseNotifier.class);

    private final LockEventListener listener;

    /** Renewals reported to no listener yet; a task to report them is queued while this is above 0. */
    private final AtomicInteger unreported = new AtomicInteger();

    private @Nullable ExecutorService thread; // guarded by this

    private boolean closed; // guarded by this

    public LeaseNotifier(LockEventListener listener) {
        this.listener = listener;
    }

    /** Reports {@code count} renewed leases to the listener, added to any not reported yet. */
    void renewed(int count) {
        if (Listeners.listening(this.listener) && this.unreported.getAndAdd(count) == 0) {
            execute(() -> Listeners.emit(this.listener, new LockEvent.Renewed(this.unreported.getAndSet(0))));
        }
    }

    /** Passes {@code event} to the listener. */
    void emit(LockEvent event) {
        if (Listeners.listening(this.listener)) {
            execute(() -> Listeners.emit(this.listener, event));
        }
    }

    /** Runs {@code task} on the notification thread after every task handed over before it; dropped once closed. */
    @Override
    public void execute(Runnable task) {
        offer(task);
    }

    /**
     * Runs a lost lease's report (its log line, event and callbacks) as {@link #execute} does, but on the calling
     * thread once closed: a loss found as the service closes is still reported.
     */
    public void report(Runnable report) {
        if (!offer(report)) {
            run(report);
        }
    }

    /** Hands {@code task} to the notification thread; false once closed. */
    private boolean offer(Runnable task) {
        ExecutorService executor;
        synchronized (this) {
            if (this.closed) {
                return false;
            }
            if (this.thread == null) {
                this.thread = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                        DaemonThreads.named("distlock-lease-events-"));
            }
            executor = this.thread;
        }
        try {
            executor.execute(() -> run(task));
        }
        catch (RejectedExecutionException ex) {
            return false; // closed meanwhile
        }
        return true;
    }

    private static void run(Runnable task) {
        try {
            task.run();
        }
        catch (RuntimeException ex) {
            logger.warn("A lease notification failed", ex);
        }
    }

    /** Runs the notifications already handed over, then ends the thread; later ones are dropped. */
    @Override
    public synchronized void close() {
        this.closed = true;
        if (this.thread != null) {
            this.thread.shutdown();
        }
    }
}
