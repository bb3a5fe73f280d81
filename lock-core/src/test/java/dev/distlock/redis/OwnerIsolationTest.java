package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Owners are per service: equal owner values re-enter within one service, and never across two. */
@RedisTest
class OwnerIsolationTest {

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void equalOwnersInTwoServicesNeverShareALock() {
        RedisLockService billing = this.clients.service();
        RedisLockService shipping = this.clients.service();
        LockOptions alice = LockOptions.defaults().withOwner("alice");

        LockHandle held = billing.acquire("account:7", alice);
        assertThat(shipping.tryAcquire("account:7", alice)).as("another service, the same owner value").isEmpty();
        try (LockHandle reentered = billing.tryAcquire("account:7", alice).orElseThrow()) {
            assertThat(reentered.ownerToken()).as("the same service: one shared hold").isEqualTo(held.ownerToken());
        }
        held.release();
        assertThat(shipping.tryAcquire("account:7", alice)).isPresent();
    }
}
