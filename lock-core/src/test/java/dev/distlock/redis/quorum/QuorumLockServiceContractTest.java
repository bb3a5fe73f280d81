package dev.distlock.redis.quorum;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import dev.distlock.LockService;
import dev.distlock.LockServiceContract;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/** The {@link LockServiceContract} in quorum mode over three masters (the set-up of {@link QuorumTest}). */
@RedisTest
class QuorumLockServiceContractTest extends LockServiceContract {

    private static List<RedisNode> masters;

    private QuorumClients clients;

    @BeforeAll
    static void startMasters(RedisServers servers) {
        masters = servers.startIndependent(3);
    }

    @BeforeEach
    void setUp() {
        QuorumClients.reset(masters);
        this.clients = new QuorumClients(masters);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Override
    protected LockService newService() {
        return this.clients.service();
    }

    /** Semaphores are refused in quorum mode (see docs/semaphores.md). */
    @Override
    protected boolean offersSemaphores() {
        return false;
    }

    @Override
    protected void deleteLock(String key) {
        masters.forEach(master -> master.call("DEL", "distlock:{" + key + "}:lock"));
    }
}
