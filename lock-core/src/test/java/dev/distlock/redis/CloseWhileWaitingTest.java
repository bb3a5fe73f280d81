package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.wakeup.ReleaseSubscriptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A service closed while a caller waits for a permit: the caller ends with the service's closing, and nothing logs
 * that the release subscription failed (it was closed on purpose), which would send an operator looking for a fault.
 */
@RedisTest
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CloseWhileWaitingTest {

    private RedisClients clients;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

    @BeforeEach
    void setUp(RedisNode redis) {
        this.clients = new RedisClients(redis);
        this.log.start();
        ((Logger) LoggerFactory.getLogger(ReleaseSubscriptions.class.getPackageName())).addAppender(this.log);
    }

    @AfterEach
    void tearDown() throws Exception {
        ((Logger) LoggerFactory.getLogger(ReleaseSubscriptions.class.getPackageName())).detachAppender(this.log);
        this.clients.close();
    }

    @Test
    void closingAServiceWhileACallerWaitsForAPermitWarnsOfNoSubscriptionFault() throws Exception {
        RedisLockService locks = this.clients.service();
        LockOptions permit = LockOptions.defaults().withPermits(1).withLeaseTime(Duration.ofSeconds(20));
        LockHandle held = this.clients.service().acquire("pool:c", permit);
        CompletableFuture<LockHandle> waiting = new CompletableFuture<>();
        Thread thread = new Thread(() -> {
            try {
                waiting.complete(locks.acquire("pool:c", permit.withWaitTime(Duration.ofSeconds(15))));
            }
            catch (Throwable ex) {
                waiting.completeExceptionally(ex);
            }
        }, "permit-waiter");
        thread.start();
        Await.until(Duration.ofSeconds(5), () -> thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING, "the caller waits");

        locks.close();

        try {
            waiting.get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException expected) {
            assertThat(expected.getCause()).isInstanceOf(IllegalStateException.class);
        }
        thread.join(5000);
        assertThat(this.log.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.WARN))
            .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
        held.release();
    }
}
