package dev.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import dev.distlock.redis.lease.Hold;

/** The {@link LocalQueue}s of one service, by key; a queue lives while a waiter uses it or a local holder has it. */
final class LocalQueues {

    private final ConcurrentHashMap<String, LocalQueue> queues = new ConcurrentHashMap<>();

    /** The key's queue, counted as used until {@link #exit}. */
    LocalQueue enter(String key) {
        while (true) {
            LocalQueue queue = this.queues.computeIfAbsent(key, LocalQueue::new);
            if (queue.enter()) {
                return queue;
            }
            this.queues.remove(key, queue); // closed between lookup and entry
        }
    }

    void exit(LocalQueue queue) {
        if (queue.exit()) {
            this.queues.remove(queue.key, queue);
        }
    }

    @Nullable LocalQueue get(String key) {
        return this.queues.get(key);
    }

    /** A new exclusive grant of this service. */
    void held(Hold hold) {
        LocalQueue queue = enter(hold.key());
        queue.held(hold);
        exit(queue);
    }

    /** A lock call on {@code key} got no answer from Redis: see {@link LocalQueue#unreachable()}. */
    void unreachable(String key) {
        LocalQueue queue = this.queues.get(key);
        if (queue != null) {
            queue.markUnreachable();
        }
    }

    /** Redis answered a lock call on {@code key}. */
    void answered(String key) {
        LocalQueue queue = this.queues.get(key);
        if (queue != null) {
            queue.answered();
        }
    }

    /** The holder's last hold was released (or its release failed) without a hand-off. */
    void released(Hold hold) {
        LocalQueue queue = this.queues.get(hold.key());
        if (queue != null && queue.released(hold)) {
            this.queues.remove(queue.key, queue);
        }
    }

    /** The number of queues, for tests. */
    int size() {
        return this.queues.size();
    }
}
