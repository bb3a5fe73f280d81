package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.distlock.LockHandle;
import dev.distlock.LockLayoutException;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;

/**
 * A service that meets data of a layout it does not know (docs/data-layout.md, "Layout version") fails that call
 * with {@link LockLayoutException} naming both layouts, grants nothing and changes nothing: for each lock type, with
 * the later layout's hash free or held, blocking, waiting, non-blocking and multi-key.
 */
class LayoutVersionTest extends DataLayoutSupport {

    /** A lock type, the hash of it that its grant reads first, and that hash as a later layout (2) leaves it. */
    enum Kind {
        EXCLUSIVE(LockOptions.defaults(), "dl:{k}:lock"),
        EXCLUSIVE_FIXED_LEASE(LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)), "dl:{k}:lock"),
        FAIR(LockOptions.defaults().withMode(LockMode.FAIR), "dl:{k}:fair:lock"),
        WRITE(LockOptions.defaults().withMode(LockMode.WRITE), "dl:{k}:rw:write"),
        READ(LockOptions.defaults().withMode(LockMode.READ), "dl:{k}:rw:write"),
        SEMAPHORE(LockOptions.defaults().withPermits(3), "dl:{k}:sem:permits");

        final LockOptions options;

        final String hash;

        Kind(LockOptions options, String hash) {
            this.options = options;
            this.hash = hash;
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aGrantThatMeetsALaterLayoutFailsNamingBothAndChangesNothing(Kind kind) throws Exception {
        laterLayout(kind.hash, Map.of("fence", "1700000000000001", "chain", "1700000000000001", "count", "0"));
        RedisLockService locks = service();
        Map<String, String> before = contents();
        Consumer<Throwable> namesBoth = failure -> assertThat(failure).isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("layout 2")
            .hasMessageContaining("layout " + RedisLockService.DATA_LAYOUT)
            .satisfies(f -> assertThat(((LockLayoutException) f).foundLayout()).isEqualTo("2"));
        assertThatThrownBy(() -> locks.tryAcquire("k", kind.options)).satisfies(namesBoth);
        // a waiting call fails at once: not a LockTimeoutException after its wait
        assertThatThrownBy(() -> locks.acquire("k", kind.options.withWaitTime(Duration.ofSeconds(30))))
            .satisfies(namesBoth);
        assertThatThrownBy(() -> locks.async().acquire("k", kind.options).get())
            .isInstanceOf(ExecutionException.class)
            .satisfies(f -> namesBoth.accept(f.getCause()));
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void aLaterLayoutHeldByItsOwnerIsNotTakenEither() {
        laterLayout("dl:{k}:lock", Map.of("owner", "0123456789abcdef0123456789abcdef", "holds", "1",
                "fence", "1700000000000001", "chain", "1700000000000001"));
        RedisLockService locks = service();
        Map<String, String> before = contents();
        assertThatThrownBy(() -> locks.tryAcquire("k", LockOptions.defaults()))
            .isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("layout 2");
        assertThat(contents()).isEqualTo(before);
    }

    @Test
    void aMultiKeyAcquisitionThatMeetsALaterLayoutLeavesNoneOfItsKeysHeld() {
        laterLayout("dl:{b}:lock", Map.of("fence", "1700000000000001", "chain", "1700000000000001"));
        RedisLockService locks = service();
        assertThatThrownBy(() -> locks.acquireAll(List.of("a", "b", "c"), LockOptions.defaults()))
            .isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("layout 2");
        assertThat(locks.tryAcquire("a")).hasValueSatisfying(LockHandle::release);
        assertThat(locks.tryAcquire("c")).hasValueSatisfying(LockHandle::release);
    }

    @Test
    void aReleaseThatMeetsALaterLayoutFailsNamingBoth() {
        RedisLockService locks = service();
        LockHandle permit = locks.acquire("k", LockOptions.defaults().withPermits(3));
        this.data.opsForHash().put("dl:{k}:sem:permits", "layout", "2");
        assertThatThrownBy(permit::release).isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("layout 2")
            .hasMessageContaining("releasing");
    }

    @Test
    void aLockKeyOfATypeNoLayoutWritesIsRefusedAsAnUnknownLayout() {
        this.data.opsForList().rightPush("dl:{k}:lock", "not a lock");
        RedisLockService locks = service();
        assertThatThrownBy(() -> locks.tryAcquire("k", LockOptions.defaults()))
            .isInstanceOf(LockLayoutException.class)
            .hasMessageContaining("WRONGTYPE")
            .satisfies(f -> assertThat(((LockLayoutException) f).foundLayout()).isEqualTo("unknown"));
        assertThat(this.data.opsForList().range("dl:{k}:lock", 0, -1)).containsExactly("not a lock");
    }

    /** Writes a hash as a later layout (2) would: with a 'layout' field, and an expiry. */
    private void laterLayout(String key, Map<String, String> fields) {
        Map<String, String> hash = new TreeMap<>(fields);
        hash.put("layout", "2");
        this.data.opsForHash().putAll(key, hash);
        this.data.expire(key, Duration.ofMinutes(1));
    }

    /** Every key (but instance records) and its contents. */
    private Map<String, String> contents() {
        Map<String, String> all = new TreeMap<>();
        for (String key : this.data.keys("dl:{*")) {
            String type = this.data.type(key).code();
            Object value = switch (type) {
                case "hash" -> new TreeMap<>(this.data.opsForHash().entries(key));
                case "string" -> this.data.opsForValue().get(key);
                case "zset" -> this.data.opsForZSet().rangeWithScores(key, 0, -1);
                default -> type;
            };
            all.put(key, String.valueOf(value));
        }
        return all;
    }
}
