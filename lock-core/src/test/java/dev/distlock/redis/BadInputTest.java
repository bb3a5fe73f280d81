package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullSource;

import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Bad input fails at the call with a message naming the argument, and nothing reaches Redis. */
@RedisTest
class BadInputTest {

    private RedisNode redis;

    private RedisClients clients;

    private RedisLockService locks;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
        this.locks = this.clients.service();
    }

    @AfterEach
    void tearDown() throws Exception {
        // a service that locked writes its instance record (InstanceRecord), whatever its calls
        assertThat(RedisClients.lockKeys(this.redis)).as("nothing written to Redis").isEmpty();
        this.clients.close();
    }

    static Stream<Arguments> badKeys() {
        return Stream.of(Arguments.of(null, "key must not be null"), Arguments.of("", "key must not be blank"),
                Arguments.of("  \t", "key must not be blank"),
                Arguments.of("x".repeat(LockService.MAX_KEY_LENGTH + 1), "key must be at most 1024 characters"),
                Arguments.of("x".repeat(10_000), "key must be at most 1024 characters"),
                Arguments.of("a{b}", "key must not contain braces"), Arguments.of("}", "key must not contain braces"),
                Arguments.of("line\nbreak", "key must not contain control characters"),
                Arguments.of("nul\0", "key must not contain control characters"));
    }

    @ParameterizedTest
    @MethodSource("badKeys")
    void badKeysAreRejectedByEveryEntryPoint(String key, String message) {
        assertThatThrownBy(() -> this.locks.acquire(key)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
        assertThatThrownBy(() -> this.locks.tryAcquire(key)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
        assertThatThrownBy(() -> this.locks.executeLocked(key, LockOptions.defaults(), lock -> "never"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
    }

    @Test
    void goodKeysWithSpacesUnicodeAndPunctuationWork() {
        for (String key : new String[] { "with spaces", "ünïcødé:日本", "a:b/c#d", "x".repeat(1024) }) {
            this.locks.acquire(key).release();
            assertThat(this.redis.lockField("distlock:{" + key + "}:lock", "owner")).isNull();
        }
        this.redis.call("FLUSHALL"); // the freed locks keep their last fencing token; clear them for tearDown
    }

    @ParameterizedTest
    @NullSource
    void nullOptionsAreRejected(LockOptions options) {
        assertThatThrownBy(() -> this.locks.acquire("k", options)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("options must not be null");
        assertThatThrownBy(() -> this.locks.tryAcquire("k", options)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("options must not be null");
        assertThatThrownBy(() -> this.locks.executeLocked("k", LockOptions.defaults(), null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("work must not be null");
    }

    @Test
    void badDurationsAreRejectedWhenTheOptionsAreMade() {
        LockOptions defaults = LockOptions.defaults();
        assertThatThrownBy(() -> defaults.withLeaseTime(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime must be at least 1ms");
        assertThatThrownBy(() -> defaults.withLeaseTime(Duration.ofMillis(-5)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> defaults.withLeaseTime(Duration.ofNanos(999_999)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime");
        assertThatThrownBy(() -> defaults.withLeaseTime(Duration.ofDays(365)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime must be at most 7 days");
        assertThatThrownBy(() -> defaults.withLeaseTime(Duration.ofSeconds(Long.MIN_VALUE)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("leaseTime must be at least 1ms");
        assertThatThrownBy(() -> defaults.withLeaseTime(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("leaseTime must not be null");
        assertThatThrownBy(() -> defaults.withWaitTime(Duration.ofSeconds(-1)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("waitTime must not be negative");
        assertThatThrownBy(() -> defaults.withWaitTime(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("waitTime must not be null");
        assertThatThrownBy(() -> defaults.withOwner(null)).isInstanceOf(IllegalArgumentException.class)
            .hasMessage("owner must not be null");
    }

    @Test
    void aHugeWaitIsAcceptedAsWaitingForever() {
        LockOptions forever = LockOptions.defaults().withWaitTime(Duration.ofSeconds(Long.MAX_VALUE));
        this.locks.acquire("patient", forever).release();
        this.redis.call("FLUSHALL");
    }

    @Test
    void badServiceSettingsAreRejectedNamingTheSetting() {
        RedisLockServiceBuilder builder = RedisLockService.builder(this.clients.template());
        assertThatThrownBy(() -> builder.keyPrefix(" ")).hasMessageContaining("keyPrefix must not be null or blank");
        assertThatThrownBy(() -> builder.keyPrefix("a{b")).hasMessageContaining("keyPrefix must not contain braces");
        assertThatThrownBy(() -> builder.watchdogLease(Duration.ZERO)).hasMessageContaining("watchdogLease");
        assertThatThrownBy(() -> builder.defaultWaitTime(Duration.ofSeconds(-1)))
            .hasMessageContaining("defaultWaitTime must not be negative");
        assertThatThrownBy(() -> builder.renewalInterval(Duration.ZERO)).hasMessageContaining("renewalInterval");
        // durations too long or too negative for a count of milliseconds: the setting's own message, no overflow
        for (Duration extreme : List.of(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofSeconds(Long.MIN_VALUE))) {
            assertThatThrownBy(() -> builder.watchdogLease(extreme)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watchdogLease must be between");
            assertThatThrownBy(() -> builder.waiterLease(extreme)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waiterLease must be between");
            assertThatThrownBy(() -> builder.callTimeout(extreme)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("callTimeout must be between");
        }
        assertThatThrownBy(() -> builder.watchdogLease(Duration.ofSeconds(3))
            .renewalInterval(Duration.ofSeconds(3))
            .build()).hasMessageContaining("renewalInterval (PT3S) must be shorter than watchdogLease (PT3S)");
        assertThatThrownBy(() -> RedisLockService.builder(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> builder.maxKeyLength(0)).hasMessageContaining("maxKeyLength must be between 1 and 1024");
        assertThatThrownBy(() -> builder.maxKeyLength(1025)).hasMessageContaining("but was 1025");
        assertThatThrownBy(() -> builder.restartGrace(Duration.ofSeconds(-1)))
            .hasMessageContaining("restartGrace must be between 0 and 7 days");
        assertThatThrownBy(() -> builder.handOffLimit(-1, Duration.ofMillis(10)))
            .hasMessageContaining("maxHandOffs must not be negative");
        assertThatThrownBy(() -> builder.replicaAcknowledgements(-2, Duration.ofMillis(500)))
            .hasMessageContaining("replicas must be -1 (by topology), 0 (off) or positive, but was -2");
        assertThatThrownBy(() -> builder.replicaAcknowledgements(0, Duration.ZERO))
            .as("the timeout is checked even when no replica is asked for")
            .hasMessageContaining("timeout must be between 1ms and 1 minute");
    }

    @Test
    void zeroReplicaAcknowledgementsTurnThemOff() {
        RedisLockServiceBuilder builder = RedisLockService.builder(this.clients.template())
            .replicaAcknowledgements(1, Duration.ofMillis(500))
            .shardingProxy(true);
        assertThatThrownBy(builder::build).hasMessageContaining("replicaAcknowledgements does not work behind");
        builder.replicaAcknowledgements(0, Duration.ofMillis(500)).build().close();
    }

    @Test
    void aLowerMaxKeyLengthRejectsLongerKeysAtTheCallInEveryModeAndWritesNothing() {
        RedisLockService bounded = this.clients.service(b -> b.maxKeyLength(64));
        String tooLong = "k".repeat(65);
        String message = "key must be at most 64 characters (the service's maxKeyLength), but had 65";
        for (LockMode mode : LockMode.values()) {
            assertThatThrownBy(() -> bounded.acquire(tooLong, LockOptions.defaults().withMode(mode)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
        }
        assertThatThrownBy(() -> bounded.tryAcquire(tooLong)).hasMessage(message);
        assertThatThrownBy(() -> bounded.acquireAll(List.of("short", tooLong), LockOptions.defaults()))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(message);
        assertThat(RedisClients.lockKeys(this.redis)).as("nothing written to Redis").isEmpty();
        bounded.acquire("k".repeat(64)).release();
        this.redis.flushAll();
    }
}
