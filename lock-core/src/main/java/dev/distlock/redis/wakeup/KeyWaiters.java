package dev.distlock.redis.wakeup;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.redis.script.LockType.WakeUp;

/** The waiters of one channel in this process, in arrival order. */
final class KeyWaiters {

    final String channel;

    final WakeUp wakeUp;

    public volatile boolean subscribed;

    private final ArrayDeque<Waiter> queue = new ArrayDeque<>(); // guarded by this

    private int users; // guarded by this

    private long idleSince = System.nanoTime(); // guarded by this

    private boolean closed; // guarded by this

    KeyWaiters(String channel, WakeUp wakeUp) {
        this.channel = channel;
        this.wakeUp = wakeUp;
    }

    void signalReleased() {
        if (this.wakeUp == WakeUp.ONE) {
            signalOne();
        }
        else if (this.wakeUp == WakeUp.ALL) {
            signalEveryone();
        }
    }

    void signalNamed(String name) {
        Waiter named = null;
        synchronized (this) {
            for (Waiter waiter : this.queue) {
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

    public synchronized void arm(Waiter waiter) {
        waiter.signalled = false;
        if (!waiter.queued) {
            waiter.queued = true;
            this.queue.addLast(waiter);
        }
    }

    void signalOne() {
        Waiter waiter;
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
        List<Waiter> woken;
        synchronized (this) {
            woken = new ArrayList<>(this.queue);
            this.queue.clear();
            for (Waiter waiter : woken) {
                waiter.queued = false;
                waiter.signalled = true;
            }
        }
        for (Waiter waiter : woken) {
            waiter.unpark();
        }
    }

    void leave(Waiter waiter, boolean acquired) {
        boolean passOn;
        synchronized (this) {
            if (waiter.queued) {
                this.queue.remove(waiter);
                waiter.queued = false;
            }
            passOn = waiter.signalled && !acquired && this.wakeUp == WakeUp.ONE;
            if (--this.users == 0) {
                this.idleSince = System.nanoTime();
            }
        }
        if (passOn) {
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
