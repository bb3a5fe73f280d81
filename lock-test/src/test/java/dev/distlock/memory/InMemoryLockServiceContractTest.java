package dev.distlock.memory;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;

import dev.distlock.LockService;
import dev.distlock.LockServiceContract;

/**
 * The {@link LockServiceContract} that the Redis and quorum services pass, in memory: the two services of a test share
 * one store, as two processes share one Redis.
 */
class InMemoryLockServiceContractTest extends LockServiceContract {

    private final InMemoryLockStore store = new InMemoryLockStore();

    private final List<InMemoryLockService> services = new ArrayList<>();

    @AfterEach
    void tearDown() {
        this.services.forEach(InMemoryLockService::close);
    }

    @Override
    protected LockService newService() {
        InMemoryLockService service = this.store.newService();
        this.services.add(service);
        return service;
    }

    @Override
    protected void deleteLock(String key) {
        this.store.expire(key);
    }
}
