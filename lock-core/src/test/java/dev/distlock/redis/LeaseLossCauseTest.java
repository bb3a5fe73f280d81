package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A lock gone from Redis before its lease could have run out is reported as gone from Redis, a restart or failover
 * the likely cause, not as a lease that ran out; a lease that did run out is still reported so.
 */
@RedisTest
class LeaseLossCauseTest {

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    private final List<LockEvent> events = new CopyOnWriteArrayList<>();

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.log.start();
        ((Logger) LoggerFactory.getLogger(RedisLockService.class)).addAppender(this.log);
    }

    @AfterEach
    void tearDown() throws Exception {
        ((Logger) LoggerFactory.getLogger(RedisLockService.class)).detachAppender(this.log);
        this.clients.close();
    }

    @Test
    void aLockLostToARedisRestartIsLoggedAsGoneFromRedisNotAsALeaseThatRanOut() {
        RedisLockService locks = this.clients.service(b -> b.listener(this.events::add));
        LockHandle lock = locks.acquire("concert:9", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));

        this.redis.kill();
        this.redis.restart(); // comes back empty, 30 s before the lease could have run out

        Await.until(Duration.ofSeconds(20), () -> {
            try {
                lock.release();
                return false;
            }
            catch (LeaseLostException ex) {
                return true;
            }
            catch (LockUnavailableException ex) {
                return false; // still reconnecting
            }
        }, "the release finds the lock gone");
        List<String> warnings = this.log.list.stream().filter(line -> line.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage).filter(line -> line.contains("concert:9")).toList();
        assertThat(warnings).anySatisfy(line -> assertThat(line).contains("was gone from Redis").contains("restarted"));
        assertThat(warnings).noneSatisfy(line -> assertThat(line).contains("lease ran out"));
        assertThat(this.events).filteredOn(LockEvent.LeaseLost.class::isInstance).singleElement()
            .satisfies(event -> assertThat(((LockEvent.LeaseLost) event).reason().getMessage())
                .contains("gone from Redis").contains("restarted").doesNotContain("lease ran out"));
    }

    @Test
    void aLockDeletedBeforeItsLeaseEndedIsReportedGoneAtRelease() {
        RedisLockService locks = this.clients.service(b -> b);
        LockHandle lock = locks.acquire("seat:12", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        this.redis.flushAll(); // as a Redis restarted without its data has it, on the same connection

        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class)
            .hasMessageContaining("was gone from Redis at release")
            .hasMessageContaining("before its lease could have run out")
            .hasMessageContaining("restarted without its data or failed over")
            .hasMessageNotContaining("lease ran out");
    }

    @Test
    void aWatchedLockGoneFromRedisIsReportedGoneByTheWatchdog() {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(900))
            .listener(this.events::add));
        locks.acquire("seat:14");
        this.redis.flushAll(); // as a Redis restarted without its data has it

        Await.until(Duration.ofSeconds(5), () -> !this.events.stream().filter(LockEvent.LeaseLost.class::isInstance)
            .toList().isEmpty(), "the watchdog finds the lock gone");
        assertThat(this.events).filteredOn(LockEvent.LeaseLost.class::isInstance).singleElement()
            .satisfies(event -> assertThat(((LockEvent.LeaseLost) event).reason().getMessage())
                .contains("was gone from Redis before its lease could have run out")
                .contains("restarted without its data or failed over"));
    }

    @Test
    void aLeaseThatRanOutIsStillReportedSo() {
        RedisLockService locks = this.clients.service(b -> b);
        LockHandle lock = locks.acquire("seat:13", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        // The holder's own deadline ends a little before Redis's expiry (it starts before the grant is sent), and a
        // release that still finds its lock in Redis releases it: wait until Redis has let the lock go too.
        Await.until(Duration.ofSeconds(5), () -> !lock.isHeld()
                && "0".equals(this.redis.call("EXISTS", "distlock:{seat:13}:lock")), "the lease runs out");

        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class)
            .hasMessageContaining("its lease ran out before the holder released it");
    }
}
