package dev.distlock.redis.wakeup;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.script.LockType.WakeUp;

/** The waiters of one channel in this process, in arrival order. */
final class KeyWaiters {

    /** The permits a release freed, when its message does not say. */
    static final int UNKNOWN = -1;

    final String channel;

    final WakeUp wakeUp;

    public volatile boolean subscribed;

    private final ArrayDeque<Entry> queue = new ArrayDeque<>(); // guarded by this

    private int users; // guarded by this

    private long idleSince = System.nanoTime(); // guarded by this

    private boolean closed; // guarded by this

    KeyWaiters(String channel, WakeUp wakeUp) {
        this.channel = channel;
        this.wakeUp = wakeUp;
    }

    /** One waiting thread, or one non-blocking acquisition told by a callback: its place and its signal. */
    static final class Entry {

        final String name;

        /** The waiting thread; null for a non-blocking waiter. */
        private final @Nullable Thread thread;

        /** Told of each signal instead of a thread; runs on the signalling thread, so it must not block. */
        private final @Nullable Runnable onSignal;

        volatile boolean signalled;

        /** Whether the current attempt follows a wake-up: it was signalled when armed. */
        boolean wokenAttempt; // guarded by the KeyWaiters

        boolean queued; // guarded by the KeyWaiters

        /** An entry for the calling thread, or, with {@code onSignal}, for a non-blocking acquisition. */
        Entry(String name, @Nullable Runnable onSignal) {
            this.name = name;
            this.onSignal = onSignal;
            this.thread = (onSignal == null) ? Thread.currentThread() : null;
        }

        /** Wakes the thread, or tells the callback; called after {@link #signalled} was set. */
        void unpark() {
            Runnable callback = this.onSignal;
            if (callback != null) {
                callback.run();
            }
            else {
                LockSupport.unpark(this.thread);
            }
        }
    }

    /**
     * A release: wakes one waiter, every waiter, or ({@link WakeUp#PERMITS}) as many as it freed permits, every
     * waiter when that is {@link #UNKNOWN} (a message of a version that did not say).
     */
    void signalReleased(int permits) {
        if (this.wakeUp == WakeUp.ONE) {
            signalOne();
        }
        else if (this.wakeUp == WakeUp.ALL || (this.wakeUp == WakeUp.PERMITS && permits == UNKNOWN)) {
            signalEveryone();
        }
        else if (this.wakeUp == WakeUp.PERMITS) {
            for (int i = 0; i < permits; i++) {
                signalOne();
            }
        }
    }

    void signalNamed(String name) {
        Entry named = null;
        synchronized (this) {
            for (Entry waiter : this.queue) {
                if (waiter.name.equals(name)) {
                    named = waiter;
                    break;
                }
            }
            if (named == null) {
                return;
            }
            this.queue.remove(named);
            named.queued = false;
            named.signalled = true;
        }
        named.unpark();
    }

    synchronized boolean join() {
        if (this.closed) {
            return false;
        }
        this.users++;
        return true;
    }

    /**
     * Before each attempt: the waiter is queued for the next wake-up. A semaphore waiter woken by a release keeps its
     * place at the front ({@link WakeUp#PERMITS}), so that a caller taking the freed permits first does not send the
     * longest waiter to the back.
     */
    synchronized void arm(Entry waiter) {
        waiter.wokenAttempt = waiter.signalled;
        waiter.signalled = false;
        if (!waiter.queued) {
            waiter.queued = true;
            if (waiter.wokenAttempt && this.wakeUp == WakeUp.PERMITS) {
                this.queue.addFirst(waiter);
            }
            else {
                this.queue.addLast(waiter);
            }
        }
    }

    void signalOne() {
        Entry waiter;
        synchronized (this) {
            waiter = this.queue.pollFirst();
            if (waiter == null) {
                return;
            }
            waiter.queued = false;
            waiter.signalled = true;
        }
        waiter.unpark();
    }

    void signalEveryone() {
        List<Entry> woken;
        synchronized (this) {
            woken = new ArrayList<>(this.queue);
            this.queue.clear();
            for (Entry waiter : woken) {
                waiter.queued = false;
                waiter.signalled = true;
            }
        }
        for (Entry waiter : woken) {
            waiter.unpark();
        }
    }

    /**
     * A waiter stops waiting. A wake-up it did not use belongs to the next waiter ({@link WakeUp#ONE},
     * {@link WakeUp#PERMITS}). A semaphore waiter that took permits in an attempt a release woke it for also wakes
     * the next: that release removed the semaphore's waiting mark, and the waiters it did not wake may rely on it for
     * the next release's message; the next waiter takes permits too (and passes on), or is refused, which sets the
     * mark again. A release of k permits thus wakes at most 2k waiters, never all, and loses no wake-up.
     */
    void leave(Entry waiter, boolean acquired) {
        int passOn = 0;
        synchronized (this) {
            if (waiter.queued) {
                this.queue.remove(waiter);
                waiter.queued = false;
            }
            if (this.wakeUp == WakeUp.ONE) {
                passOn = (waiter.signalled && !acquired) ? 1 : 0;
            }
            else if (this.wakeUp == WakeUp.PERMITS) {
                passOn = (waiter.signalled ? 1 : 0) + ((acquired && waiter.wokenAttempt) ? 1 : 0);
            }
            if (--this.users == 0) {
                this.idleSince = System.nanoTime();
            }
        }
        for (int i = 0; i < passOn; i++) {
            signalOne(); // a wake-up this waiter did not use belongs to the next one
        }
    }

    synchronized boolean idleSince(long now, long lingerNanos) {
        return this.users == 0 && now - this.idleSince >= lingerNanos;
    }

    synchronized boolean closeIfIdle(long now, long lingerNanos) {
        if (idleSince(now, lingerNanos)) {
            this.closed = true;
        }
        return this.closed;
    }
}
