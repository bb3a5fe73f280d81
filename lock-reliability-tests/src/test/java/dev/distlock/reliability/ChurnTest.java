package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * Many short-lived clients on one key: each connects, takes the lock a few times, writes to the fenced resource and
 * goes away; every third one vanishes while holding the lock. The checker must pass. A holder stalled past its lease
 * (a cold JVM can stall for seconds while classes load) is allowed, provided it is told: its section then counts as
 * not valid, its release reports the loss, and the fenced resource keeps the order.
 */
@RedisTest
class ChurnTest {

    private static final int ROUNDS = 8;

    private static final int CLIENTS_PER_ROUND = 3;

    private static final int CYCLES_PER_CLIENT = 5;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shortLivedClientsNeverOverlapAndTheirTokensIncrease(RedisNode redis, RedisServers servers) throws Exception {
        RedisNode resourceServer = servers.start();
        List<Section> history = new CopyOnWriteArrayList<>();
        try (Clients shared = new Clients()) {
            FencedResource resource = new FencedResource(
                    shared.template(resourceServer.port(), Duration.ofSeconds(2)), "churn");
            shared.service(redis.port(), Duration.ofSeconds(2), b -> b).acquire("warm-up").release();
            List<String> lostAndReported = new CopyOnWriteArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                List<CompletableFuture<Void>> clients = new ArrayList<>();
                for (int c = 0; c < CLIENTS_PER_ROUND; c++) {
                    String name = "client-" + round + "-" + c;
                    boolean vanishes = (round * CLIENTS_PER_ROUND + c) % 3 == 0;
                    clients.add(CompletableFuture.runAsync(() -> runClient(redis.port(), resource, name, vanishes,
                            history, lostAndReported)));
                }
                CompletableFuture.allOf(clients.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            }
            assertThat(history).hasSize(ROUNDS * CLIENTS_PER_ROUND * CYCLES_PER_CLIENT);
            assertThat(HistoryChecker.violations(history, resource.accepted())).isEmpty();
            long invalid = history.stream().filter(section -> !section.validAtEnd()).count();
            assertThat(lostAndReported).as("every section that ended invalid was reported at release")
                .hasSizeGreaterThanOrEqualTo((int) invalid - ROUNDS); // a vanished holder reports nothing
            assertThat(invalid).as("stalls past the lease are the exception").isLessThan(history.size() / 10);
        }
    }

    private static void runClient(int port, FencedResource resource, String name, boolean vanishes,
            List<Section> history, List<String> lostAndReported) {
        try (Clients own = new Clients()) {
            RedisLockService locks = own.service(port, Duration.ofSeconds(2),
                    b -> b.watchdogLease(Duration.ofMillis(1000)));
            LockOptions options = LockOptions.defaults().withWaitTime(Duration.ofSeconds(30));
            for (int cycle = 0; cycle < CYCLES_PER_CLIENT; cycle++) {
                LockHandle lock = locks.acquire("churn", options);
                long start = System.nanoTime();
                resource.write(lock.fencingToken());
                history.add(new Section(name, lock.ownerToken(), lock.fencingToken(), start, System.nanoTime(),
                        lock.isHeld()));
                if (vanishes && cycle == CYCLES_PER_CLIENT - 1) {
                    return; // gone while holding: its lease must run out before anyone else gets in
                }
                try {
                    lock.release();
                }
                catch (LeaseLostException ex) {
                    lostAndReported.add(name + ": " + ex.getMessage());
                }
            }
        }
    }
}
