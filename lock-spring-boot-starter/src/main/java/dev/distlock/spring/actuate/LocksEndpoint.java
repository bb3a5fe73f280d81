package dev.distlock.spring.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import dev.distlock.HeldLock;
import dev.distlock.LockInspection;

/**
 * The {@code locks} actuator endpoint: the locks this instance holds now, from {@link LockInspection#heldLocks()}.
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
     * The endpoint's answer, {@code {"locks": [...]}}: per lock its key, name, mode, since, leaseDeadline (ISO-8601
     * instants), fencingToken, owner, holdCount and whether the watchdog renews it.
     *
     * @param locks the held locks, oldest first
     */
    public record HeldLocks(List<HeldLock> locks) implements OperationResponseBody {
    }
}
