package dev.distlock.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** What the provider adds to ShedLock's contract: the lost-lease report, and clear errors for bad input. */
@RedisTest
class DistributedLockProviderTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    private final Logger providerLogger = (Logger) LoggerFactory.getLogger(DistributedLockProvider.class);

    private RedisServices services;

    private DistributedLockProvider provider;

    private LockService otherNode;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.services = new RedisServices(redis);
        this.provider = new DistributedLockProvider(this.services.service());
        this.otherNode = this.services.service();
        this.log.start();
        this.providerLogger.addAppender(this.log);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.providerLogger.detachAppender(this.log);
        this.services.close();
    }

    @Test
    void aJobThatOutrunsLockAtMostForIsLoggedOnceAndItsUnlockDoesNotThrow() {
        SimpleLock lock = this.provider.lock(config("report", Duration.ofMillis(100), Duration.ZERO)).orElseThrow();
        Optional<LockHandle> other = Optional.empty();
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (other.isEmpty() && System.nanoTime() < deadline) { // polls until the lease runs out in Redis
            other = this.otherNode.tryAcquire("shedlock:report");
            if (other.isEmpty()) {
                pause();
            }
        }
        assertThat(other).describedAs("another node takes the lock once lockAtMostFor ran out").isPresent();

        lock.unlock();
        assertThat(this.log.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("ShedLock lock 'report' lost its lease");
        });
        assertThat(other.get().isHeld()).isTrue();
        other.get().release();
    }

    @Test
    void anExtensionNeverShortensTheLeaseAndKeepsTheLockHeldThroughout() {
        SimpleLock lock = this.provider.lock(config("nightly", Duration.ofMinutes(5), Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(Duration.ofSeconds(30), Duration.ZERO).orElseThrow();
        assertThat(this.otherNode.tryAcquire("shedlock:nightly")).isEmpty();
        extended.unlock();
        assertThat(this.otherNode.tryAcquire("shedlock:nightly")).isPresent();
        assertThat(this.log.list).isEmpty();
    }

    @Test
    void lessThanAMillisecondOfLockAtLeastForLeftStillKeepsTheLockAfterTheJob(RedisNode redis) {
        Instant now = Instant.now();
        ClockProvider.setClock(Clock.fixed(now, ZoneOffset.UTC)); // ShedLock's clock: the time left is exactly 0.5 ms
        try {
            SimpleLock lock = this.provider
                .lock(new LockConfiguration(now, "brief", Duration.ofMinutes(1), Duration.ofNanos(500_000)))
                .orElseThrow();
            lock.unlock();
        }
        finally {
            ClockProvider.setClock(Clock.systemUTC());
        }
        assertThat(redis.lockField("distlock:{shedlock:brief}:lock", "owner"))
            .as("released with the half millisecond left as its delay, not at once").isEqualTo("(released)");
    }

    @Test
    void badNamesAndDurationsAreRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> this.provider.lock(config("job{1}", Duration.ofMinutes(1), Duration.ZERO)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("key");
        assertThatThrownBy(() -> this.provider.lock(config("job", Duration.ofDays(8), Duration.ZERO)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("lockAtMostFor of ShedLock lock 'job'");
        assertThatThrownBy(() -> new DistributedLockProvider(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(this.otherNode.tryAcquire("shedlock:job")).isPresent();
    }

    @Test
    void aKeyPrefixOfItsOwnSeparatesTheLocks() {
        DistributedLockProvider jobs = new DistributedLockProvider(this.otherNode, "jobs:");
        SimpleLock lock = jobs.lock(config("sync", Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
        assertThat(this.provider.lock(config("sync", Duration.ofMinutes(1), Duration.ZERO))).isPresent();
        assertThat(this.otherNode.tryAcquire("jobs:sync", LockOptions.defaults().withOwner(this)))
            .isEmpty();
        lock.unlock();
    }

    @Test
    void whileRedisCannotGiveLocksJobsAreSkippedWithOneWarningAndAnInfoWhenItAnswersAgain(RedisNode redis) {
        DistributedLockProvider graced = new DistributedLockProvider(this.services.service(Duration.ofHours(1)));
        redis.call("DEL", "distlock:restart-grace"); // the marker of a process older than the grace
        for (int tick = 0; tick < 3; tick++) {
            assertThat(graced.lock(config("tick", Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
        }
        assertThat(this.log.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("ShedLock lock 'tick' not taken: Redis refuses new "
                    + "locks for its restart grace, so scheduled jobs are skipped until it answers");
            assertThat(event.getThrowableProxy()).isNull();
        });
        redis.call("SET", "distlock:restart-grace", "1"); // declares the server fresh
        graced.lock(config("tick", Duration.ofMinutes(1), Duration.ZERO)).orElseThrow().unlock();
        assertThat(this.log.list).hasSize(2).last().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.INFO);
            assertThat(event.getFormattedMessage()).isEqualTo("ShedLock locks are taken again: Redis answers.");
        });
    }

    private static void pause() {
        try {
            Thread.sleep(5);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }
}
