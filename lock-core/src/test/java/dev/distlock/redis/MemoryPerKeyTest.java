package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * What a lock leaves in Redis once freed, for a workload where every key is locked once: Redis memory per key
 * ({@code INFO memory}) times how long it stays. The old defaults kept a freed lock's hash for an hour and a reader's
 * marker for 60 s; the retention is now the release's retry window.
 */
@RedisTest
class MemoryPerKeyTest {

    private static final int KEYS = 2000;

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.clients.close();
    }

    @Test
    void aFreedOneShotKeyCostsAtLeastTenTimesLessThanWithTheOldRetention() {
        Cost before = cost(this.clients.service(b -> b.tokenRetention(Duration.ofHours(1))), LockMode.EXCLUSIVE);
        Cost after = cost(this.clients.service(), LockMode.EXCLUSIVE);
        Cost reader = cost(this.clients.service(), LockMode.READ);
        // a read leaves the reader's marker and the lock's last token; before, they stayed 60 s and an hour
        long marker = Long.parseLong(this.redis.call("MEMORY", "USAGE", this.redis.call("KEYS", "*:rw:reader:*")
            .split("\n")[0].trim()));
        long fence = Long.parseLong(this.redis.call("MEMORY", "USAGE", "distlock:{order:7}:rw:fence"));
        System.out.printf("freed exclusive key: before %s, after %s (%.0fx less); read: %s in all, marker %d B and "
                + "last token %d B (MEMORY USAGE), before 60 s and 3600 s (%.0fx less)%n", before, after,
                before.byteSeconds() / after.byteSeconds(), reader, marker, fence,
                (marker * 60.0 + fence * 3600.0) / reader.byteSeconds());
        // the retry window of this test's clients: 3 x 5 s command timeout + 1 s
        assertThat(after.ttlMillis()).isBetween(10_000L, 16_000L);
        assertThat(after.bytesPerKey()).isLessThan(400);
        assertThat(before.byteSeconds() / after.byteSeconds()).isGreaterThanOrEqualTo(10);
        assertThat(reader.ttlMillis()).isLessThanOrEqualTo(16_000L);
    }

    /** Locks and frees {@link #KEYS} distinct keys; measures the memory and lifetime of what they leave. */
    private Cost cost(RedisLockService locks, LockMode mode) {
        // SYNC: Valkey 8 frees a FLUSHALL's memory in the background by default (lazyfree-lazy-user-flush), which
        // would go on shrinking used_memory during the measurement
        this.redis.call("FLUSHALL", "SYNC");
        locks.acquire("warm-up", LockOptions.defaults().withMode(mode)).release();
        this.redis.call("FLUSHALL", "SYNC");
        long start = usedMemory();
        for (int i = 0; i < KEYS; i++) {
            locks.acquire("order:" + i, LockOptions.defaults().withMode(mode)).release();
        }
        long bytes = (usedMemory() - start) / KEYS;
        // an exclusive lock leaves its last token and the freed mark (the evidence of its release a retried release
        // reads), a read its reader's marker and the last token
        assertThat(RedisClients.lockKeys(this.redis)).as("what a freed key leaves (the service's instance record apart)")
            .hasSize(2 * KEYS);
        String left = (mode == LockMode.READ) ? "distlock:{order:" + (KEYS - 1) + "}:rw:fence"
                : "distlock:{order:" + (KEYS - 1) + "}:lock"; // the last, so that the loop's time does not count
        return new Cost(bytes, Long.parseLong(this.redis.call("PTTL", left)));
    }

    private long usedMemory() {
        String info = this.redis.call("INFO", "memory");
        int start = info.indexOf("used_memory:") + "used_memory:".length();
        return Long.parseLong(info.substring(start, info.indexOf('\r', start)).trim());
    }

    private record Cost(long bytesPerKey, long ttlMillis) {

        double byteSeconds() {
            return this.bytesPerKey * this.ttlMillis / 1000.0;
        }

        @Override
        public String toString() {
            return this.bytesPerKey + " B for " + this.ttlMillis / 1000 + " s";
        }
    }
}
