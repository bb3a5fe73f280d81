package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import dev.distlock.KeyText;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Keys come from callers' input, so no key may forge a log line, steer a terminal or hide text in a message, and an
 * application may keep keys (user ids, e-mail addresses) out of its logs altogether.
 */
@RedisTest
class KeysInLogsTest {

    private RedisNode redis;

    private RedisClients clients;

    private final ListAppender<ILoggingEvent> log = new ListAppender<>();

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
    void aRejectedKeyCannotForgeALogLineOrSteerTheTerminal() {
        RedisLockService locks = this.clients.service();
        String forged = "{alice}\n2026-01-01 ERROR forged\r\u001b[31mred\u0000";
        assertThatThrownBy(() -> locks.acquire(forged)).isInstanceOf(IllegalArgumentException.class)
            .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("\n", "\r", "\u001b", "\u0000")
                .contains("\\u000A2026-01-01 ERROR forged\\u000D\\u001B[31mred\\u0000"));
    }

    @Test
    void invisibleCharactersOfAnAcceptedKeyAreEscapedAndLongKeysCut() {
        RedisLockService locks = this.clients.service();
        LockHandle held = locks.acquire("order:\u202Egnp.exe\u200B");
        String longKey = "k".repeat(1000) + "\u202E";
        LockHandle heldLong = locks.acquire(longKey);
        RedisLockService other = this.clients.service();

        assertThatThrownBy(() -> other.acquire("order:\u202Egnp.exe\u200B",
                LockOptions.defaults().withWaitTime(Duration.ZERO)))
            .satisfies(ex -> assertThat(ex.getMessage()).doesNotContain("\u202E", "\u200B")
                .contains("'order:\\u202Egnp.exe\\u200B'"));
        assertThatThrownBy(() -> other.acquire(longKey, LockOptions.defaults().withWaitTime(Duration.ZERO)))
            .satisfies(ex -> assertThat(ex.getMessage()).contains("... (1001 characters)")
                .doesNotContain("k".repeat(KeyText.MAX_SHOWN + 1), "\u202E"));
        held.release();
        heldLong.release();
    }

    @Test
    void aLostLeaseIsLoggedByItsNameOnlyWhenKeysAreKeptOutOfLogs() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)).logKeys(false));
        LockHandle lock = locks.acquire("alice@example.com", LockOptions.defaults().withName("profile-update"));
        CountDownLatch lost = new CountDownLatch(1);
        lock.onLeaseLost(ex -> lost.countDown());

        this.redis.call("DEL", "distlock:{alice@example.com}:lock");

        assertThat(lost.await(5, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        List<String> lines = this.log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        assertThat(lines).anySatisfy(line -> assertThat(line).contains("named 'profile-update'")
            .contains("deleted or taken by another owner"));
        assertThat(lines).noneSatisfy(line -> assertThat(line).contains("alice"));
    }

    @Test
    void aLostLeaseIsLoggedWithItsKeyByDefault() throws Exception {
        RedisLockService locks = this.clients.service(b -> b.watchdogLease(Duration.ofMillis(600)));
        LockHandle lock = locks.acquire("cart:7");
        CountDownLatch lost = new CountDownLatch(1);
        lock.onLeaseLost(ex -> lost.countDown());

        this.redis.call("DEL", "distlock:{cart:7}:lock");

        assertThat(lost.await(5, TimeUnit.SECONDS)).as("the holder is told").isTrue();
        assertThat(this.log.list).anySatisfy(event -> assertThat(event.getFormattedMessage()).contains("'cart:7'"));
    }
}
