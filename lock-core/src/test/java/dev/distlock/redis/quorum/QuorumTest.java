package dev.distlock.redis.quorum;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * The set-up the quorum tests share: five independent masters for the whole class, emptied and running again before
 * each test, and quorum services on them that are closed after it.
 */
@RedisTest
abstract class QuorumTest {

    static List<RedisNode> masters;

    QuorumClients clients;

    @BeforeAll
    static void startMasters(RedisServers servers) {
        masters = servers.startIndependent(5);
    }

    @BeforeEach
    void resetMasters() {
        QuorumClients.reset(masters);
        this.clients = new QuorumClients(masters);
    }

    @AfterEach
    void closeClients() throws Exception {
        this.clients.close();
    }
}
