package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;

/**
 * Fencing tokens in quorum mode increase from holder to holder, also when a master's clock ran ahead at an earlier
 * grant (simulated by the token it remembers), after masters restarted empty, and after a lease expired unreleased.
 */
class QuorumFencingTest extends QuorumTest {

    /** A token an hour ahead of every clock: what a master whose clock ran an hour ahead would have handed out. */
    private static long anHourAhead() {
        return (System.currentTimeMillis() + Duration.ofHours(1).toMillis()) * 1000;
    }

    private static long quorumFence(RedisNode master, String key) {
        String fence = master.call("GET", "distlock:{" + key + "}:quorum-fence");
        return (fence == null) ? 0 : Long.parseLong(fence);
    }

    @Test
    void tokensIncreaseFromHolderToHolder() {
        List<QuorumLockService> services = List.of(this.clients.service(), this.clients.service());
        long last = 0;
        for (int i = 0; i < 6; i++) {
            try (LockHandle lock = services.get(i % 2).acquire("fenced")) {
                assertThat(lock.fencingToken()).isGreaterThan(last);
                last = lock.fencingToken();
            }
        }
    }

    @Test
    void theTokenTopsEveryRememberedTokenAndSurvivesTwoMastersRestartedEmpty() {
        QuorumLockService first = this.clients.service();
        QuorumLockService second = this.clients.service();
        long ahead = anHourAhead();
        masters.get(4).call("SET", "distlock:{fenced}:quorum-fence", Long.toString(ahead), "PX", "60000");

        LockHandle lock = first.acquire("fenced");
        assertThat(lock.fencingToken()).isGreaterThan(ahead);
        for (RedisNode master : masters) {
            assertThat(quorumFence(master, "fenced")).isEqualTo(lock.fencingToken());
        }
        lock.release();

        masters.get(0).restart(); // the three others still remember the token: any quorum meets one of them
        masters.get(1).restart();
        try (LockHandle next = second.acquire("fenced", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
    }

    @Test
    void theTokenTopsThePreviousHoldersAfterItsLeaseExpiredUnreleased() {
        QuorumLockService crashed = this.clients.service();
        QuorumLockService next = this.clients.service();
        masters.get(2).call("SET", "distlock:{expired}:quorum-fence", Long.toString(anHourAhead()), "PX", "60000");

        LockHandle abandoned = crashed.acquire("expired", LockOptions.defaults().withLeaseTime(Duration.ofMillis(300)));
        // Never released: the lock hashes, with the last token in them, expire on every master.
        Await.until(Duration.ofSeconds(5),
                () -> masters.stream().allMatch(master -> "0".equals(master.call("EXISTS", "distlock:{expired}:lock"))),
                "the lock expires everywhere");
        try (LockHandle lock = next.acquire("expired")) {
            assertThat(lock.fencingToken()).isGreaterThan(abandoned.fencingToken());
        }
    }
}
