package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Blocking lock calls run on the Lettuce connection itself, not through the template (whose per-call connection
 * wrapper and proxy cost about a tenth of the client's CPU per cycle), on a shared connection and on dedicated ones.
 */
@RedisTest
class BlockingCallPathTest {

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
    void blockingLockCallsDoNotGoThroughTheTemplate() {
        CountingTemplate template = new CountingTemplate(this.clients.template().getRequiredConnectionFactory());
        RedisLockService locks = this.clients.service(template, builder -> builder);
        RedisLockService other = this.clients.service();

        LockHandle held = locks.acquire("a");
        assertThat(other.tryAcquire("a", LockOptions.defaults())).as("held by the first service").isEmpty();
        try (LockHandle reentered = locks.acquire("a")) {
            assertThat(reentered.fencingToken()).isEqualTo(held.fencingToken());
        }
        held.release();
        assertThat(this.redis.lockField("distlock:{a}:lock", "owner")).as("freed").isNull();
        try (LockHandle again = locks.acquire("a")) {
            assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThat(template.scriptCalls).as("scripts run through the template").hasValue(0);
    }

    @Test
    void withoutASharedConnectionEachCallTakesAConnectionAndGivesItBack() {
        StringRedisTemplate shared = this.clients.template();
        LettuceConnectionFactory factory = (LettuceConnectionFactory) shared.getRequiredConnectionFactory();
        factory.setShareNativeConnection(false);
        RedisLockService locks = this.clients.service(new StringRedisTemplate(factory), builder -> builder);
        int before = connectedClients();

        for (int i = 0; i < 20; i++) {
            try (LockHandle lock = locks.acquire("b")) {
                assertThat(lock.isHeld()).isTrue();
            }
        }

        assertThat(this.redis.lockField("distlock:{b}:lock", "owner")).as("freed").isNull();
        // 40 calls, each on a connection of its own that is closed once its reply is in (the watchdog and the
        // release subscription may keep one or two of their own)
        Await.until(Duration.ofSeconds(5), () -> connectedClients() <= before + 2,
                "the calls' connections are closed");
    }

    /**
     * Without a shared connection a grant and the WAIT after it run on different connections, and WAIT counts only
     * its own connection's writes: it would confirm a grant no replica has. Refused when the service is built.
     */
    @Test
    void replicaAcknowledgementsWithoutASharedConnectionAreRefusedAtStartUp() {
        LettuceConnectionFactory factory = (LettuceConnectionFactory) this.clients.template()
            .getRequiredConnectionFactory();
        factory.setShareNativeConnection(false);
        RedisLockServiceBuilder builder = RedisLockService.builder(new StringRedisTemplate(factory))
            .replicaAcknowledgements(1, Duration.ofMillis(500));

        assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("replicaAcknowledgements")
            .hasMessageContaining("shareNativeConnection");
    }

    private int connectedClients() {
        String info = this.redis.call("INFO", "clients");
        return info.lines().filter(line -> line.startsWith("connected_clients:"))
            .mapToInt(line -> Integer.parseInt(line.substring("connected_clients:".length()).trim()))
            .findFirst()
            .orElseThrow();
    }

    /** Counts the scripts run through it. */
    private static final class CountingTemplate extends StringRedisTemplate {

        final AtomicInteger scriptCalls = new AtomicInteger();

        CountingTemplate(RedisConnectionFactory connectionFactory) {
            super(connectionFactory);
        }

        @Override
        public <T> T execute(RedisScript<T> script, List<String> keys, Object... args) {
            this.scriptCalls.incrementAndGet();
            return super.execute(script, keys, args);
        }
    }
}
