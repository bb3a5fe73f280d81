package dev.distlock.sample.web;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Component;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;

/** Keeps the last lock events of this instance for the status page. The starter passes every listener bean on. */
@Component
public class LockActivity implements LockEventListener {

    private static final int KEPT = 30;

    private final ArrayDeque<Event> events = new ArrayDeque<>(); // guarded by this

    @Override
    public void onEvent(LockEvent event) {
        if (event instanceof LockEvent.Acquired acquired) {
            LockHandle lock = acquired.lock();
            add("acquired", lock.key(), lock.name(),
                    "token " + lock.fencingToken() + ", waited " + acquired.waited().toMillis() + " ms");
        }
        else if (event instanceof LockEvent.NotAcquired refused) {
            add("not acquired", refused.key(), refused.name(),
                    "held by another owner for " + refused.waited().toMillis() + " ms");
        }
        else if (event instanceof LockEvent.AcquireFailed failed) {
            add("failed", failed.key(), failed.name(), failed.reason().getMessage());
        }
        else if (event instanceof LockEvent.HandedOff handedOff) {
            add("handed off", handedOff.from().key(), handedOff.from().name(),
                    "to token " + handedOff.to().fencingToken() + " in one call");
        }
        else if (event instanceof LockEvent.Released released) {
            add("released", released.lock().key(), released.lock().name(),
                    "held " + released.held().toMillis() + " ms");
        }
        else if (event instanceof LockEvent.LeaseLost lost) {
            add("lease lost", lost.lock().key(), lost.lock().name(), lost.reason().getMessage());
        }
        else if (event instanceof LockEvent.ReleaseFailed failed) {
            add("release failed", failed.lock().key(), failed.lock().name(), failed.reason().getMessage());
        }
        // acquisition starts and renewals would crowd out the rest of the page
    }

    private synchronized void add(String what, String key, String name, String detail) {
        if (this.events.size() == KEPT) {
            this.events.removeLast();
        }
        this.events.addFirst(new Event(Instant.now(), what, key, name, detail));
    }

    /** The newest events first. */
    public synchronized List<Event> recent() {
        return new ArrayList<>(this.events);
    }

    /** One lock event: {@code name} is the lock's low-cardinality name, as metrics show it. */
    public record Event(Instant at, String what, String key, String name, String detail) {
    }
}
