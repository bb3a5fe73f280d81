package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Owners are per service: equal owner values re-enter within one service, and never across two; a lock freed by
 * someone else with the holder's token is reported to the holder.
 */
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

    /**
     * Someone with access to the lock key frees it with the holder's token read from the hash, writing what
     * release.lua writes: the holder's watchdog finds the hold gone at its next renewal and reports the loss, so
     * {@code isHeld()} turns false and the callback runs; the holder's release then frees nothing of the next holder.
     */
    @Test
    void aForeignReleaseIsReportedToTheHolderAtItsNextRenewal(RedisNode redis) {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(900)));
        LockHandle held = locks.acquire("stolen");
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        held.onLeaseLost(lost::set);
        String hash = "distlock:{stolen}:lock";
        // what the owner's release leaves: the last token and its run (the hold's fields deleted)
        Map<String, String> fields = LockFields.of(redis, hash);
        assertThat(fields).containsEntry("owner", held.ownerToken());
        List<String> holdFields = new ArrayList<>(fields.keySet());
        holdFields.removeAll(List.of("fence", "chain"));
        List<String> command = new ArrayList<>(List.of("HDEL", hash));
        command.addAll(holdFields);
        redis.call(command.toArray(String[]::new));

        Await.until(Duration.ofSeconds(5), () -> !held.isHeld() && lost.get() != null,
                "the next renewal reported the loss to isHeld() and the callback");
        assertThat(redis.lockField(hash, "owner")).isNull();
        RedisLockService other = this.clients.service();
        try (LockHandle next = other.acquire("stolen")) {
            held.release(); // the loss was reported already
            assertThat(redis.lockField(hash, "owner")).as("the new holder keeps it").isEqualTo(next.ownerToken());
        }
    }
}
