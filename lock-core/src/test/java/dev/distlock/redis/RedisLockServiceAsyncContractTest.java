package dev.distlock.redis;

import dev.distlock.AsyncBackedLockService;
import dev.distlock.LockInspection;
import dev.distlock.LockService;
import dev.distlock.LockServiceContract;

/** The {@link LockServiceContract} on one Redis, every acquisition through {@link LockService#async()}. */
class RedisLockServiceAsyncContractTest extends RedisLockServiceContractTest {

    @Override
    protected LockService newService() {
        return new AsyncBackedLockService(super.newService());
    }

    @Override
    protected LockInspection inspection(LockService service) {
        return ((AsyncBackedLockService) service).inspection();
    }
}
