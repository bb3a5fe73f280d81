package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.test.Await;

/** Quorum mode while masters fail: too few left, one restarted empty, and the quorum lost under a holder. */
class QuorumFailureTest extends QuorumTest {

    @Test
    void withThreeOfFiveMastersDownNothingIsAcquiredAndNothingIsLeftHeld() {
        QuorumLockService locks = this.clients.service();
        masters.get(0).stop();
        masters.get(1).kill();
        masters.get(2).stop();

        assertThatThrownBy(() -> locks.tryAcquire("down"))
            .isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("only 2 of 5 Redis masters answered, 3 needed")
            .hasMessageContaining("127.0.0.1:" + masters.get(1).port());
        // A waiting caller tries until its wait ends, in case masters come back, then says why it failed.
        assertThatThrownBy(() -> locks.acquire("down", LockOptions.defaults().withWaitTime(Duration.ofSeconds(1))))
            .isInstanceOf(LockUnavailableException.class)
            .hasMessageContaining("only 2 of 5 Redis masters answered");
        assertThat(QuorumLockServiceTest.holders(masters, "down")).isZero(); // the two live masters gave it back
    }

    @Test
    void aMasterRestartedWithoutPersistenceLeavesTheLockHeldByTheQuorum() {
        QuorumLockService holder = this.clients.service(builder -> builder.watchdogLease(QuorumClients.SHORT_LEASE));
        QuorumLockService other = this.clients.service(builder -> builder.watchdogLease(QuorumClients.SHORT_LEASE));
        LockHandle lock = holder.acquire("restart");
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        lock.onLeaseLost(lost::set);

        masters.get(0).restart(); // comes back empty: the other client may take the lock there, but nowhere else
        LockOptions longerThanTheLease = LockOptions.defaults().withWaitTime(QuorumClients.SHORT_LEASE.multipliedBy(2));
        assertThatThrownBy(() -> other.acquire("restart", longerThanTheLease)).isInstanceOf(LockTimeoutException.class);
        assertThat(lock.isHeld()).isTrue();
        assertThat(lost.get()).isNull();
        assertThat(QuorumLockServiceTest.holders(masters, "restart")).isEqualTo(4);

        lock.release(); // four of five members released: a quorum
        try (LockHandle next = other.tryAcquire("restart").orElseThrow()) {
            assertThat(next.fencingToken()).isGreaterThan(lock.fencingToken());
        }
    }

    @Test
    void losingTheQuorumUnderAHolderIsReportedAsALostLease() {
        ListAppender<ILoggingEvent> log = capture(QuorumLockService.class);
        QuorumLockService locks = this.clients.service(builder -> builder.watchdogLease(QuorumClients.SHORT_LEASE));
        LockHandle lock = locks.acquire("lose");
        LockHandle reentered = locks.acquire("lose");
        AtomicReference<LeaseLostException> lost = new AtomicReference<>();
        AtomicReference<LeaseLostException> reenteredLost = new AtomicReference<>();
        lock.onLeaseLost(lost::set);
        reentered.onLeaseLost(reenteredLost::set);

        masters.get(0).kill();
        masters.get(1).kill();
        masters.get(2).stop();
        // Unreachable masters may still hold their member until its lease ends, so the loss is known then.
        Await.until(QuorumClients.SHORT_LEASE.plusSeconds(5), () -> lost.get() != null, "the loss is reported");
        assertThat(lock.isHeld()).isFalse();
        assertThat(reentered.isHeld()).isFalse();
        assertThat(lost.get()).hasMessageContaining("Lock 'lose' lost its quorum");
        assertThat(reenteredLost.get()).isSameAs(lost.get());
        assertThat(log.list).anySatisfy(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).contains("Lock 'lose' lost its quorum");
        });
        assertThatThrownBy(reentered::release).isInstanceOf(LeaseLostException.class);
        assertThatThrownBy(lock::release).isInstanceOf(LeaseLostException.class)
            .hasMessageContaining("no longer held by a quorum");
    }

    @Test
    void mastersRestartedEmptyLoseTheQuorumAtTheNextRenewalLongBeforeTheLeaseEnds() {
        QuorumLockService locks = this.clients.service(
                builder -> builder.watchdogLease(Duration.ofSeconds(10)).renewalInterval(Duration.ofMillis(300)));
        LockHandle lock = locks.acquire("wiped");
        AtomicReference<Instant> lostAt = new AtomicReference<>();
        lock.onLeaseLost(reason -> lostAt.set(Instant.now()));
        Instant leaseEnd = lock.leaseDeadline();

        masters.get(2).restart();
        masters.get(3).restart();
        masters.get(4).restart();
        Await.until(Duration.ofSeconds(10), () -> lostAt.get() != null, "the loss is reported");
        assertThat(lostAt.get()).isBefore(leaseEnd);
        assertThat(lock.isHeld()).isFalse();
    }

    private static ListAppender<ILoggingEvent> capture(Class<?> type) {
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        ((Logger) LoggerFactory.getLogger(type)).addAppender(appender);
        return appender;
    }
}
