package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisNodeConfig;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/**
 * A Redis server whose clock jumps an hour forward: every lease expires at once, so a second client gets a lock whose
 * first holder still believes it holds it. No lease-based lock survives this; the test records it and shows the
 * fencing check catching the stale holder's write.
 *
 * <p>The jump comes from {@code src/test/c/clockshift.c}, a small LD_PRELOAD library built here with gcc, loaded into
 * Debian's dynamically linked {@code redis-server} (the embedded binary is static, so nothing can be preloaded into
 * it). Debian's libfaketime would be the usual tool, but it deadlocks at start-up with the jemalloc that Debian's
 * redis-server uses. Skipped, saying so, without gcc or {@code apt-get install redis-server}.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClockJumpTest {

    private static final Path DYNAMIC_REDIS = Path.of("/usr/bin/redis-server");

    private static final Path SHIFT_SOURCE = Path.of("src/test/c/clockshift.c");

    private final Clients clients = new Clients();

    @TempDir
    Path files;

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    @Test
    void aForwardClockJumpOnASingleRedisHandsTheLockToASecondHolderAndFencingRejectsTheFirst(RedisServers servers,
            RedisNode resourceServer) throws Exception {
        Path clock = this.files.resolve("clock-shift");
        RedisNode redis = startShifted(servers, clock);
        FencedResource resource = new FencedResource(
                this.clients.template(resourceServer.port(), Duration.ofSeconds(2)), "clock-jump");
        RedisLockService first = this.clients.service(redis.port(), Duration.ofSeconds(2),
                b -> b.watchdogLease(Duration.ofSeconds(10)).renewalInterval(Duration.ofMillis(500)));
        RedisLockService second = this.clients.service(redis.port(), Duration.ofSeconds(2), b -> b);

        LockHandle early = first.acquire("report");
        long earlyStart = System.nanoTime();
        CountDownLatch told = new CountDownLatch(1);
        early.onLeaseLost(reason -> told.countDown());

        jumpAnHour(clock);

        // By Redis's clock the 10 s lease ended an hour ago: the second client gets the lock at once...
        LockHandle late = second.acquire("report", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        long lateStart = System.nanoTime();
        // ...while the first holder, going by its own clock, still believes it holds it.
        boolean earlyStillBelieved = early.isHeld();
        assertThat(earlyStillBelieved).as("the first holder's view when the second got the lock").isTrue();
        assertThat(late.fencingToken()).isGreaterThan(early.fencingToken());

        // The fencing check catches it: the newer holder writes, the older one's write is rejected.
        assertThat(resource.write(late.fencingToken())).isTrue();
        assertThat(resource.write(early.fencingToken())).isFalse();
        // and the watchdog tells the first holder at its next renewal
        assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(early.isHeld()).isFalse();

        List<Section> history = new ArrayList<>();
        history.add(new Section("early", early.ownerToken(), early.fencingToken(), earlyStart, lateStart + 1,
                earlyStillBelieved));
        history.add(new Section("late", late.ownerToken(), late.fencingToken(), lateStart, System.nanoTime(), true));
        assertThat(HistoryChecker.overlaps(history)).as("mutual exclusion is broken by the clock jump").hasSize(1);
        assertThat(HistoryChecker.nonIncreasingTokens(resource.accepted())).as("but the resource stayed safe")
            .isEmpty();
        late.release();
    }

    @Test
    void aQuorumLockSurvivesOneMastersClockJumpButNotAMajoritysAndFencingCatchesTheRest(RedisServers servers,
            RedisNode resourceServer) throws Exception {
        Path oneClock = this.files.resolve("clock-shift-one");
        Path twoClocks = this.files.resolve("clock-shift-two");
        List<RedisNode> masters = new ArrayList<>(servers.startIndependent(2)); // clocks left alone
        masters.add(startShifted(servers, oneClock)); // jumps first, alone
        masters.add(startShifted(servers, twoClocks)); // these two jump together later
        masters.add(startShifted(servers, twoClocks));
        List<StringRedisTemplate> templates = new ArrayList<>();
        for (RedisNode master : masters) {
            templates.add(this.clients.template(master.port(), Duration.ofSeconds(2)));
        }
        QuorumLockService first = QuorumLockService.builder(templates).watchdogLease(Duration.ofSeconds(10))
            .restartGrace(Duration.ZERO).renewalInterval(Duration.ofMillis(500)).build();
        QuorumLockService second = QuorumLockService.builder(templates).restartGrace(Duration.ZERO).build();
        try {
            FencedResource resource = new FencedResource(
                    this.clients.template(resourceServer.port(), Duration.ofSeconds(2)), "quorum-jump");
            LockHandle early = first.acquire("report");
            CountDownLatch told = new CountDownLatch(1);
            early.onLeaseLost(reason -> told.countDown());

            // One master's clock jumps: its member expires, but four of five still hold the lock.
            jumpAnHour(oneClock);
            assertThat(second.tryAcquire("report")).as("one jumped master cannot hand the lock over").isEmpty();
            assertThat(early.isHeld()).isTrue();

            // A majority's clocks jump: their members all expire, and a second holder gets a quorum of them.
            jumpAnHour(twoClocks);
            LockHandle late = second.acquire("report", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
            assertThat(early.isHeld()).as("the first holder, by its own clock, still believes it holds").isTrue();
            assertThat(late.fencingToken()).isGreaterThan(early.fencingToken());
            assertThat(resource.write(late.fencingToken())).isTrue();
            assertThat(resource.write(early.fencingToken())).as("the fencing check catches it").isFalse();
            assertThat(told.await(10, TimeUnit.SECONDS)).as("the first holder is told at its next renewal").isTrue();
            late.release();
        }
        finally {
            first.close();
            second.close();
        }
    }

    /** Debian's redis-server with the clock-shift library, its clock offset by the seconds in {@code clock}. */
    private RedisNode startShifted(RedisServers servers, Path clock) throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(DYNAMIC_REDIS),
                "needs Debian's dynamically linked redis-server: apt-get install redis-server");
        Path shift = buildClockShift();
        if (!Files.exists(clock)) {
            Files.writeString(clock, "0\n");
        }
        return servers.start(RedisNodeConfig.defaults()
            .launchedWith(DYNAMIC_REDIS, Map.of("LD_PRELOAD", shift.toString(), "CLOCKSHIFT_FILE", clock.toString())));
    }

    private void jumpAnHour(Path clock) throws Exception {
        Path next = clock.resolveSibling(clock.getFileName() + ".next");
        Files.writeString(next, "3600\n");
        Files.move(next, clock, StandardCopyOption.ATOMIC_MOVE);
    }

    private Path buildClockShift() throws Exception {
        Path library = this.files.resolve("libclockshift.so");
        if (Files.exists(library)) {
            return library;
        }
        Process gcc;
        try {
            gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-O2", "-o", library.toString(),
                    SHIFT_SOURCE.toAbsolutePath().toString()).redirectErrorStream(true).start();
        }
        catch (java.io.IOException ex) {
            Assumptions.abort("needs gcc to build the clock-shift library: " + ex.getMessage());
            throw ex;
        }
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as(new String(gcc.getInputStream().readAllBytes())).isZero();
        return library;
    }
}
