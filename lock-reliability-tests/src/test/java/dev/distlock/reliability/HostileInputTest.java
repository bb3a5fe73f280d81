package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.test.LockFields;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Every public entry point with hostile values: keys with braces, newlines and 10,000 characters, durations that are
 * zero, negative or huge, and null everywhere. Each fails at the call with an IllegalArgumentException whose message
 * names the argument, and Redis is left exactly as it was (checked with DBSIZE and SCAN). Keys with spaces and unicode
 * are legitimate and work.
 */
@RedisTest
class HostileInputTest {

    private static final String HUGE = "k".repeat(10_000);

    private RedisNode redis;

    private final Clients clients = new Clients();

    private RedisLockService locks;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.locks = this.clients.service(redis.port(), Duration.ofSeconds(2), b -> b);
    }

    @AfterEach
    void tearDown() {
        this.clients.close();
    }

    static Stream<Arguments> hostileKeys() {
        return Stream.of(Arguments.of("braces", "a{b}c", "braces"), Arguments.of("an open brace", "{", "braces"),
                Arguments.of("a newline", "line\nbreak", "control characters"),
                Arguments.of("a carriage return", "a\rb", "control characters"),
                Arguments.of("a NUL", "a\0b", "control characters"),
                Arguments.of("10,000 characters", HUGE, "at most 1024 characters"),
                Arguments.of("blank", " \t ", "blank"), Arguments.of("empty", "", "blank"),
                Arguments.of("null", null, "key must not be null"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostileKeys")
    void aHostileKeyIsRejectedByEveryEntryPointAndNothingIsWritten(String name, String key, String message) {
        LockOptions options = LockOptions.defaults();
        for (ThrowingCallable call : List.<ThrowingCallable>of(() -> this.locks.acquire(key),
                () -> this.locks.acquire(key, options.withMode(LockMode.READ)),
                () -> this.locks.acquire(key, options.withMode(LockMode.WRITE)),
                () -> this.locks.acquire(key, options.withMode(LockMode.FAIR)), () -> this.locks.tryAcquire(key),
                () -> this.locks.executeLocked(key, options, lock -> "never"),
                () -> this.locks.acquireAll(Arrays.asList("fine", key), options),
                () -> this.locks.tryAcquireAll(Arrays.asList(key), options),
                () -> this.locks.executeLockedAll(Arrays.asList(key, "fine"), options, lock -> "never"))) {
            assertThatThrownBy(call).as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
        }
        assertRedisUntouched();
    }

    @Test
    void hostileKeyCollectionsAreRejected() {
        LockOptions options = LockOptions.defaults();
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= LockService.MAX_KEYS; i++) {
            tooMany.add("key:" + i);
        }
        for (Collection<String> keys : Arrays.<Collection<String>>asList(null, List.of(), tooMany)) {
            assertThatThrownBy(() -> this.locks.acquireAll(keys, options)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keys");
        }
        assertRedisUntouched();
    }

    @Test
    void hostileDurationsAndNullsAreRejectedWhereTheyAreGiven() throws Exception {
        LockOptions options = LockOptions.defaults();
        expect(() -> options.withWaitTime(Duration.ofMillis(-1)), "waitTime must not be negative");
        expect(() -> options.withWaitTime(null), "waitTime must not be null");
        expect(() -> options.withLeaseTime(Duration.ZERO), "leaseTime must be at least 1ms");
        expect(() -> options.withLeaseTime(Duration.ofSeconds(-5)), "leaseTime must be at least 1ms");
        expect(() -> options.withLeaseTime(Duration.ofSeconds(Long.MAX_VALUE)), "leaseTime must be at most 7 days");
        expect(() -> options.withLeaseTime(null), "leaseTime must not be null");
        expect(() -> options.withOwner(null), "owner must not be null");
        expect(() -> options.withMode(null), "mode must not be null");
        expect(() -> this.locks.acquire("k", null), "options must not be null");
        expect(() -> this.locks.executeLocked("k", options, null), "work must not be null");

        RedisLockServiceBuilder builder = RedisLockService.builder(this.clients.template(this.redis.port(),
                Duration.ofSeconds(2)));
        expect(() -> builder.keyPrefix(null), "keyPrefix");
        expect(() -> builder.keyPrefix("a\nb"), "keyPrefix");
        expect(() -> builder.watchdogLease(Duration.ofDays(365)), "watchdogLease");
        expect(() -> builder.watchdogLease(Duration.ZERO), "watchdogLease");
        expect(() -> builder.defaultWaitTime(Duration.ofSeconds(-1)), "defaultWaitTime");
        expect(() -> builder.renewalInterval(Duration.ZERO), "renewalInterval");
        expect(() -> builder.tokenRetention(Duration.ZERO), "tokenRetention");
        expect(() -> builder.waiterLease(Duration.ZERO), "waiterLease");
        expect(() -> builder.listener(null), "listener");

        // a held handle: hostile arguments are rejected and leave the lock as it was
        LockHandle lock = this.locks.acquire("held");
        Map<String, String> before = LockFields.of(this.redis, "distlock:{held}:lock");
        expect(() -> lock.releaseAfter(Duration.ofMillis(-1)), "delay");
        expect(() -> lock.releaseAfter(Duration.ofDays(365)), "delay");
        expect(() -> lock.releaseAfter(null), "delay");
        expect(() -> lock.onLeaseLost(null), "callback");
        assertThat(LockFields.of(this.redis, "distlock:{held}:lock")).isEqualTo(before);
        assertThat(lock.isHeld()).isTrue();
        lock.release();

        // a huge wait is a legitimate "wait as long as it takes"
        this.locks.acquire("patient", options.withWaitTime(Duration.ofSeconds(Long.MAX_VALUE))).release();
    }

    @Test
    void keysWithSpacesAndUnicodeAreLegitimateAndWork() {
        for (String key : new String[] { "with spaces", "ünïcødé:日本語:🔒", "tab-free/slashes#hash" }) {
            try (LockHandle lock = this.locks.acquire(key)) {
                assertThat(this.redis.lockField("distlock:{" + key + "}:lock", "owner"))
                    .isEqualTo(lock.ownerToken());
            }
        }
    }

    private static void expect(ThrowingCallable call, String message) {
        assertThatThrownBy(call).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    private void assertRedisUntouched() {
        assertThat(this.redis.call("DBSIZE")).isEqualTo("0");
        // cursor 0 and no keys
        assertThat(this.redis.call("SCAN", "0", "MATCH", "*", "COUNT", "1000").strip()).isEqualTo("0");
    }
}
