package dev.distlock.redis;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

import dev.distlock.LockService;
import dev.distlock.LockServiceContract;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** The {@link LockServiceContract} on one Redis. */
@RedisTest
class RedisLockServiceContractTest extends LockServiceContract {

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Override
    protected LockService newService() {
        return this.clients.service();
    }

    @Override
    protected void deleteLock(String key) {
        this.redis.call("DEL", "distlock:{" + key + "}:lock");
    }
}
