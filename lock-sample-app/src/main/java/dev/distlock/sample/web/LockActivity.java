package dev.distlock.sample.web;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import org.springframework.stereotype.Component;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockListener;


/** Keeps the last lock events of this instance for the status page. The starter passes every listener bean on. */
@Component
public class LockActivity implements LockListener {

    private static final int KEPT = 30;

    private final ArrayDeque<Event> events = new ArrayDeque<>(); // guarded by this

    @Override
    public void acquired(LockHandle lock, Duration waited) {
        add("acquired", lock.key(), lock.name(),
                "token " + lock.fencingToken() + ", waited " + waited.toMillis() + " ms");
    }

    @Override
    public void notAcquired(String key, String name, Duration waited) {
        add("not acquired", key, name, "held by another owner for " + waited.toMillis() + " ms");
    }

    @Override
    public void acquireFailed(String key, String name, Duration waited, LockException reason) {
        add("failed", key, name, reason.getMessage());
    }

    @Override
    public void released(LockHandle lock, Duration held) {
        add("released", lock.key(), lock.name(), "held " + held.toMillis() + " ms");
    }

    @Override
    public void leaseLost(LockHandle lock, LeaseLostException reason) {
        add("lease lost", lock.key(), lock.name(), reason.getMessage());
    }

    @Override
    public void releaseFailed(LockHandle lock, LockException reason) {
        add("release failed", lock.key(), lock.name(), reason.getMessage());
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
