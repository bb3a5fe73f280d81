package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * What a semaphore costs Redis, for docs/semaphores.md: memory per semaphore and per held permit ({@code INFO memory}),
 * what a freed one leaves, and the round trips and commands of one permit cycle ({@code INFO commandstats}, which
 * counts the commands scripts run too).
 */
@RedisTest
class SemaphoreCostTest {

    private static final int COUNT = 1000;

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
    void memoryPerSemaphoreAndPerPermit() {
        RedisLockService service = this.clients.service();
        LockOptions five = LockOptions.defaults().withPermits(5);
        service.acquire("warm-up", five).release();
        this.redis.call("FLUSHALL", "SYNC"); // Valkey 8 would free the flushed memory in the background, during the count
        List<LockHandle> held = new ArrayList<>();
        long start = usedMemory();
        for (int i = 0; i < COUNT; i++) {
            held.add(service.acquire("export:" + i, five)); // one holder each
        }
        long perSemaphore = (usedMemory() - start) / COUNT;
        long before = usedMemory();
        LockOptions many = LockOptions.defaults().withPermits(COUNT + 1);
        held.add(service.acquire("batch", many));
        long first = usedMemory();
        for (int i = 1; i < COUNT; i++) {
            held.add(service.acquire("batch", many));
        }
        long perPermit = (usedMemory() - first) / (COUNT - 1);
        for (LockHandle handle : held) {
            handle.release();
        }
        long left = Long.parseLong(this.redis.call("DBSIZE"));
        System.out.printf("semaphore with one holder: %d B; each further holder: %d B (first of 'batch' %d B); "
                + "after release %d keys remain (last token and released marks, kept for the retry window)%n",
                perSemaphore, perPermit, first - before, left);
        assertThat(perSemaphore).isLessThan(2000);
        assertThat(perPermit).isLessThan(600);
        assertThat(this.redis.call("KEYS", "*:sem:leases")).as("no count left once every permit is back").isEmpty();
        assertThat(this.redis.call("KEYS", "*:sem:permits")).isEmpty();
    }

    @Test
    void onePermitCycleIsTwoRoundTrips() {
        RedisLockService service = this.clients.service();
        LockOptions five = LockOptions.defaults().withPermits(5);
        LockHandle other = service.acquire("export", five); // another holder, so the count is not trivially empty
        service.acquire("export", five).release();
        this.redis.call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 100; i++) {
            service.acquire("export", five).release();
        }
        Map<String, Long> calls = commandCalls();
        System.out.println("commands per permit cycle (of 100): " + perCycle(calls, 100));
        long scripts = calls.getOrDefault("evalsha", 0L) + calls.getOrDefault("eval", 0L);
        assertThat(scripts).as("one script to acquire, one to release").isEqualTo(200);
        assertThat(calls).doesNotContainKey("publish"); // nobody waits: no message
        other.release();
    }

    private Map<String, String> perCycle(Map<String, Long> calls, int cycles) {
        Map<String, String> per = new TreeMap<>();
        calls.forEach((command, count) -> per.put(command, String.format("%.2f", count / (double) cycles)));
        return per;
    }

    private Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : this.redis.call("INFO", "commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String command = line.substring("cmdstat_".length(), line.indexOf(':'));
                int at = line.indexOf("calls=") + "calls=".length();
                calls.put(command, Long.parseLong(line.substring(at, line.indexOf(',', at))));
            }
        }
        calls.remove("config");
        calls.remove("info");
        return calls;
    }

    private long usedMemory() {
        String info = this.redis.call("INFO", "memory");
        int start = info.indexOf("used_memory:") + "used_memory:".length();
        return Long.parseLong(info.substring(start, info.indexOf('\r', start)).trim());
    }
}
