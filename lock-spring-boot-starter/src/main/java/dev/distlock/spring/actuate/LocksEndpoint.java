package dev.distlock.spring.actuate;

import java.time.Instant;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

import dev.distlock.HeldLock;
import dev.distlock.LockHolder;
import dev.distlock.LockInspection;
import dev.distlock.LockInstance;
import dev.distlock.LockStatus;

/**
 * The {@code locks} actuator endpoint: the locks this instance holds now, from {@link LockInspection#heldLocks()},
 * and at {@code /actuator/locks/{key}} who holds and waits for one key, across instances, from Redis.
 * It shows keys, which may hold user ids, so expose it only where operators alone can reach it. Read-only.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    private final LockInspection lockService;

    /** Lists the locks of {@code lockService}. */
    public LocksEndpoint(LockInspection lockService) {
        this.lockService = lockService;
    }

    /** The held locks, oldest first. */
    @ReadOperation
    public HeldLocks locks() {
        return new HeldLocks(this.lockService.heldLocks());
    }

    /**
     * One key's locks as Redis has them, whichever instance holds them ({@link LockInspection#inspect(String)}):
     * {@code GET /actuator/locks/{key}}. A key with slashes is the rest of the path.
     *
     * @return the key's locks, or null (a 404) when the key is free
     */
    @ReadOperation
    public @Nullable KeyLocks lock(@Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
        List<LockStatus> states = this.lockService.inspect(String.join("/", key));
        return states.isEmpty() ? null : KeyLocks.of(states);
    }

    /**
     * The endpoint's answer, {@code {"locks": [...]}}: per lock its key, name, mode, since, leaseDeadline (ISO-8601
     * instants), fencingToken, owner, holdCount and whether the watchdog renews it.
     *
     * @param locks the held locks, oldest first
     */
    public record HeldLocks(List<HeldLock> locks) implements OperationResponseBody {
    }

    /**
     * The answer for one key, {@code {"locks": [...]}}: per type of lock its key, mode, holders, waiters and
     * othersWaiting. A holder: instance, owner, since (ISO-8601, or null when unknown), leaseLeftMillis,
     * fencingToken, holdCount, permits. An instance: id, host, application, pid, started, lastSeen (see
     * {@link LockInstance}).
     *
     * @param locks one entry per type of lock held or waited for under the key
     */
    public record KeyLocks(List<KeyLock> locks) implements OperationResponseBody {

        static KeyLocks of(List<LockStatus> states) {
            return new KeyLocks(states.stream()
                .map(state -> new KeyLock(state.key(), state.mode().name(),
                        state.holders().stream().map(Holder::of).toList(), state.waiters(), state.othersWaiting()))
                .toList());
        }
    }

    /** One type of lock of the key (see {@link LockStatus}). */
    public record KeyLock(String key, String mode, List<Holder> holders, List<LockInstance> waiters,
            boolean othersWaiting) {
    }

    /** One holder (see {@link LockHolder}), its lease left in milliseconds, as every Boot line writes it alike. */
    public record Holder(LockInstance instance, @Nullable String owner, @Nullable Instant since,
            long leaseLeftMillis, long fencingToken, int holdCount, int permits) {

        static Holder of(LockHolder holder) {
            return new Holder(holder.instance(), holder.owner(), holder.since(), holder.leaseLeft().toMillis(),
                    holder.fencingToken(), holder.holdCount(), holder.permits());
        }
    }
}
