package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** A fair lock whose holder's lease runs out goes to the next waiter right at the expiry, without idling. */
@RedisTest
class FairHandoverTest {

    private static final String QUEUE = "distlock:{batch}:fair:queue";

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

    @Test
    void whenEachHoldersLeaseRunsOutTheNextWaiterGetsTheLockAtTheExpiry() throws Exception {
        // A long waiter lease: a waiter that idles instead of re-checking at the expiry would idle for seconds.
        RedisLockService locks = this.clients.service(b -> b.waiterLease(Duration.ofSeconds(60)));
        Duration lease = Duration.ofSeconds(1);
        LockOptions waiting = LockOptions.defaults().withMode(LockMode.FAIR).withLeaseTime(lease)
            .withWaitTime(Duration.ofSeconds(60));
        LockHandle first = locks.acquire("batch", LockOptions.defaults().withMode(LockMode.FAIR));

        int waiters = 4;
        AtomicLongArray grantedNanos = new AtomicLongArray(waiters);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < waiters; i++) {
            int index = i;
            Thread thread = new Thread(() -> {
                try {
                    locks.acquire("batch", waiting); // never released: its lease runs out
                    grantedNanos.set(index, System.nanoTime());
                }
                catch (Throwable ex) {
                    failure.set(ex);
                }
            }, "fair-waiter-" + i);
            thread.start();
            threads.add(thread);
            long queued = i + 1;
            Await.until(Duration.ofSeconds(10), () -> Long.parseLong(this.redis.call("ZCARD", QUEUE)) == queued,
                    "waiter " + i + " queued");
        }

        first.release();
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
        }
        assertThat(failure.get()).isNull();
        // Each grant follows the previous one by the 1 s lease and a hand-over; idling until the next re-check would
        // take seconds more. The margin is wide for a loaded machine.
        for (int i = 1; i < waiters; i++) {
            long gapMillis = TimeUnit.NANOSECONDS.toMillis(grantedNanos.get(i) - grantedNanos.get(i - 1));
            assertThat(gapMillis).as("from grant %d to grant %d", i - 1, i)
                .isLessThan(lease.toMillis() + 1500);
        }
    }
}
