package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/** Faults of the client process: killed with SIGKILL, and paused with SIGSTOP for longer than its lease. */
@RedisTest
class ClientFaultTest {

    private static final Duration LEASE = Duration.ofMillis(1500);

    private RedisNode redis;

    private RedisNode resourceServer;

    private Clients clients;

    private FencedResource resource;

    @TempDir
    Path files;

    @BeforeEach
    void setUp(RedisNode redis, RedisServers servers) {
        this.redis = redis;
        this.resourceServer = servers.nodes().isEmpty() ? servers.start() : servers.nodes().get(0);
        this.resourceServer.flushAll();
        this.clients = new Clients();
        this.resource = new FencedResource(this.clients.template(this.resourceServer.port(), Duration.ofSeconds(2)),
                "guarded");
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    private ChildJvm startClient(String key, String name) throws Exception {
        return ChildJvm.start(LockClientMain.class, Integer.toString(this.redis.port()),
                Integer.toString(this.resourceServer.port()), key, Long.toString(LEASE.toMillis()),
                this.files.resolve("history").toString(), this.files.resolve("go").toString(), name);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aKilledHoldersLockIsTakenAfterItsLeaseAndNotBefore() throws Exception {
        RedisLockService locks = this.clients.service(this.redis.port(), Duration.ofSeconds(2), b -> b);
        try (ChildJvm child = startClient("guarded", "child")) {
            child.awaitLine("ACQUIRED", Duration.ofSeconds(30));
            child.killHard();
            long killedAt = System.nanoTime();
            long remainingMillis = Long.parseLong(this.redis.call("PTTL", "distlock:{guarded}:lock"));
            assertThat(remainingMillis).as("the dead holder's lease is still running").isPositive();
            assertThat(locks.tryAcquire("guarded")).as("not before the lease ends").isEmpty();

            try (LockHandle lock = locks.acquire("guarded",
                    LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                long acquiredAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                // Redis measured the remaining lease after the kill; allow its millisecond rounding
                assertThat(acquiredAfterMillis).isGreaterThanOrEqualTo(remainingMillis - 2);
                assertThat(acquiredAfterMillis).isLessThan(LEASE.toMillis() + 10_000);
                assertThat(this.resource.write(lock.fencingToken())).isTrue();
            }
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPausedHolderIsToldItsLeaseIsLostAndItsLateWriteIsRejected() throws Exception {
        RedisLockService locks = this.clients.service(this.redis.port(), Duration.ofSeconds(2), b -> b);
        List<Section> history = new ArrayList<>();
        try (ChildJvm child = startClient("guarded", "paused")) {
            child.awaitLine("ACQUIRED", Duration.ofSeconds(30));
            child.signal("STOP");
            // The lease runs out in Redis while the holder cannot renew it.
            long waitUntil = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (!"0".equals(this.redis.call("EXISTS", "distlock:{guarded}:lock"))
                    && System.nanoTime() < waitUntil) {
                Thread.sleep(20);
            }
            LockHandle lock = locks.acquire("guarded", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)));
            long start = System.nanoTime();
            assertThat(this.resource.write(lock.fencingToken())).isTrue();
            history.add(new Section("test", lock.ownerToken(), lock.fencingToken(), start, System.nanoTime(),
                    lock.isHeld()));

            child.signal("CONT");
            assertThat(child.awaitLine("LEASE_LOST", Duration.ofSeconds(20))).contains("'guarded'");
            Files.createFile(this.files.resolve("go"));
            assertThat(child.awaitLine("WRITE", Duration.ofSeconds(20))).isEqualTo("WRITE rejected");
            assertThat(child.awaitLine("RELEASE", Duration.ofSeconds(20))).startsWith("RELEASE_FAILED");
            assertThat(child.awaitExit(Duration.ofSeconds(20))).isZero();
            assertThat(lock.isHeld()).as("the paused holder's release left the new lock alone").isTrue();
            lock.release();
        }
        for (String line : Files.readAllLines(this.files.resolve("history"))) {
            history.add(Section.fromLine(line));
        }
        assertThat(history).hasSize(2).anyMatch(section -> !section.validAtEnd());
        assertThat(HistoryChecker.violations(history, this.resource.accepted())).isEmpty();
    }
}
