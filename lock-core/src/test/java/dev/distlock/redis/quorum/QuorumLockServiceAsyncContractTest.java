package dev.distlock.redis.quorum;

import dev.distlock.AsyncBackedLockService;
import dev.distlock.LockInspection;
import dev.distlock.LockService;
import dev.distlock.LockServiceContract;

/** The {@link LockServiceContract} in quorum mode, every acquisition through {@link LockService#async()}. */
class QuorumLockServiceAsyncContractTest extends QuorumLockServiceContractTest {

    @Override
    protected LockService newService() {
        return new AsyncBackedLockService(super.newService());
    }

    @Override
    protected LockInspection inspection(LockService service) {
        return ((AsyncBackedLockService) service).inspection();
    }
}
