package dev.distlock.memory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import dev.distlock.HeldLock;
import dev.distlock.LockHolder;
import dev.distlock.LockInstance;
import dev.distlock.LockMode;
import dev.distlock.LockStatus;

/**
 * One key's locks in a store as {@link InMemoryLockService#inspect} shows them, as the Redis service reads them: per
 * type (the read and write sides apart, a fair and a plain semaphore as one {@code SEMAPHORE}), its holders in grant
 * order and its waiters in arrival order. Called under the store's monitor.
 */
final class MemoryInspection {

    private MemoryInspection() {
    }

    static List<LockStatus> of(String key, Function<LockMode, @Nullable LockState> lockOfType) {
        long now = System.nanoTime();
        Instant nowInstant = Instant.now();
        List<LockStatus> states = new ArrayList<>();
        for (LockMode type : new LockMode[] { LockMode.EXCLUSIVE, LockMode.FAIR, LockMode.WRITE, LockMode.SEMAPHORE }) {
            LockState state = lockOfType.apply(type);
            if (state == null) {
                continue;
            }
            for (LockMode mode : (type == LockMode.WRITE) ? new LockMode[] { LockMode.WRITE, LockMode.READ }
                    : new LockMode[] { type }) {
                List<LockHolder> holders = new ArrayList<>();
                for (MemoryHold hold : state.holds) {
                    HeldLock held = (hold.mode == mode || type != LockMode.WRITE) ? hold.snapshot(now) : null;
                    if (held != null) {
                        Duration left = Duration.between(nowInstant, held.leaseDeadline());
                        holders.add(new LockHolder(hold.owner.service().instance(), held.owner(), held.since(),
                                left.isNegative() ? Duration.ZERO : left, held.fencingToken(), held.holdCount(),
                                Math.max(1, hold.permits)));
                    }
                }
                List<LockInstance> waiters = state.waiters.stream()
                    .filter(waiter -> waiter.mode() == mode || type != LockMode.WRITE)
                    .map(waiter -> waiter.owner().service().instance())
                    .toList();
                if (!holders.isEmpty() || !waiters.isEmpty()) {
                    states.add(new LockStatus(key, mode, holders, waiters, !waiters.isEmpty()));
                }
            }
        }
        return states;
    }
}
