package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Twemproxy in front of two shards, and what nutcracker does with the commands a lock library needs; the
 * answers are recorded in {@link TwemproxyTopology}'s Javadoc. Skipped, saying why, without nutcracker.
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TwemproxyTopologyTest {

    private static final Logger LOG = LoggerFactory.getLogger(TwemproxyTopologyTest.class);
    private static final String GET_SCRIPT = "return redis.call('GET', KEYS[1])";

    private final RedisServers servers = RedisServers.create();
    private TwemproxyTopology proxy;

    @AfterAll
    void closeServers() {
        servers.close();
    }

    @Test
    void setAndGetThroughTheProxyLandOnTheShards() {
        TwemproxyTopology proxy = proxy();
        assertThat(proxy.shards()).hasSize(2);
        assertThat(proxy.call("PING")).isEqualTo("PONG");

        Set<RedisNode> used = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            // varied keys: Twemproxy's 32-bit fnv1a_64 puts similar ones like key-0...key-99 all on one shard
            String key = UUID.nameUUIDFromBytes(("key-" + i).getBytes(StandardCharsets.UTF_8)).toString();
            assertThat(proxy.call("SET", key, "v" + i)).isEqualTo("OK");
            assertThat(proxy.call("GET", key)).isEqualTo("v" + i);
            RedisNode shard = proxy.shardHolding(key);
            assertThat(shard).as(key).isNotNull();
            assertThat(shard.call("GET", key)).isEqualTo("v" + i);
            used.add(shard);
        }
        assertThat(used).containsExactlyInAnyOrderElementsOf(proxy.shards());
        long total = proxy.shards().stream().mapToLong(shard -> Long.parseLong(shard.call("DBSIZE"))).sum();
        assertThat(total).isEqualTo(100);
    }

    @Test
    void keysWithOneHashTagLandOnTheSameShard() {
        TwemproxyTopology proxy = proxy();
        Set<RedisNode> used = new HashSet<>();
        for (int i = 0; i < 30; i++) {
            String tag = "{order:" + i + "}";
            for (String suffix : new String[] {":lock", ":fence", ":waiters"}) {
                proxy.call("SET", tag + suffix, "x");
            }
            RedisNode shard = proxy.shardHolding(tag + ":lock");
            assertThat(proxy.shardHolding(tag + ":fence")).as(tag).isSameAs(shard);
            assertThat(proxy.shardHolding(tag + ":waiters")).as(tag).isSameAs(shard);
            used.add(shard);
        }
        assertThat(used).containsExactlyInAnyOrderElementsOf(proxy.shards());
    }

    @Test
    void evalWithKeysInOneTagRunsOnTheirShard() {
        TwemproxyTopology proxy = proxy();
        String lock = "{invoice:7}:lock";
        String fence = "{invoice:7}:fence";

        String token = proxy.call("EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('INCR', KEYS[2])",
                "2", lock, fence, "owner-1");

        assertThat(token).isEqualTo("1");
        RedisNode shard = proxy.shardHolding(lock);
        assertThat(proxy.shardHolding(fence)).isSameAs(shard);
        assertThat(shard.call("GET", lock)).isEqualTo("owner-1");
        assertThat(proxy.call("EVAL", GET_SCRIPT, "1", lock)).isEqualTo("owner-1");
    }

    @Test
    void evalIsRoutedByItsFirstKeyOnlySoOtherKeysMayLandOnTheWrongShard() {
        TwemproxyTopology proxy = proxy();
        String first = keyOn(proxy, 0, "first-");
        String second = keyOn(proxy, 1, "second-");

        assertThat(proxy.call("EVAL", "return redis.call('SET', KEYS[2], 'x')", "2", first, second)).isEqualTo("OK");

        assertThat(proxy.shards().get(0).call("GET", second)).isEqualTo("x");
        assertThat(proxy.shards().get(1).call("EXISTS", second)).isEqualTo("0");
        assertThat(proxy.call("GET", second)).isNull();
    }

    @Test
    void evalshaGoesToTheFirstKeysShardAndNeedsTheScriptThere() {
        TwemproxyTopology proxy = proxy();
        String onShard0 = keyOn(proxy, 0, "sha0-");
        String onShard1 = keyOn(proxy, 1, "sha1-");
        proxy.call("SET", onShard0, "zero");
        String sha = proxy.shards().get(0).call("SCRIPT", "LOAD", GET_SCRIPT);

        assertThat(proxy.call("EVALSHA", sha, "1", onShard0)).isEqualTo("zero");
        assertThat(proxy.call("EVALSHA", sha, "2", onShard0, onShard1)).isEqualTo("zero");
        assertThatThrownBy(() -> proxy.call("EVALSHA", sha, "2", onShard1, onShard0)).hasMessageStartingWith("NOSCRIPT");

        proxy.call("EVAL", GET_SCRIPT, "1", onShard1);
        assertThat(proxy.shards().get(1).call("SCRIPT", "EXISTS", sha)).isEqualTo("1");
        assertThat(proxy.call("EVALSHA", sha, "1", onShard1)).isNull();
    }

    @Test
    void unsupportedCommandsCloseTheConnection() {
        TwemproxyTopology proxy = proxy();
        String[][] unsupported = {
            {"EVAL", "return 1", "0"},
            {"SCRIPT", "LOAD", GET_SCRIPT},
            {"SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db"},
            {"SCRIPT", "FLUSH"},
            {"PUBLISH", "channel", "message"},
            {"SUBSCRIBE", "channel"},
            {"INFO"},
        };
        for (String[] command : unsupported) {
            assertThatThrownBy(() -> proxy.call(command)).as(String.join(" ", command))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasMessageContaining("connection closed by server");
        }
        assertThat(proxy.call("PING")).isEqualTo("PONG");
    }

    @Test
    void pingIsAnsweredWithoutShardsAndCloseStopsNutcracker() {
        assumeTrue(TwemproxyTopology.isAvailable(), TwemproxyTopology.SKIP_MESSAGE);
        RedisServers own = RedisServers.create();
        TwemproxyTopology single = own.startTwemproxy(1);
        long pid = single.pid();
        single.shards().get(0).stop();

        assertThat(single.call("PING")).isEqualTo("PONG");
        assertThatThrownBy(() -> single.call("GET", "k")).isInstanceOf(RedisCallException.class);

        own.close();
        assertThat(single.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(own.nodes()).isEmpty();
    }

    @Test
    void withoutNutcrackerStartFailsWithTheInstallHint() {
        String original = System.getProperty(TwemproxyTopology.EXECUTABLE_PROPERTY);
        System.setProperty(TwemproxyTopology.EXECUTABLE_PROPERTY, "/nonexistent/nutcracker");
        try (RedisServers own = RedisServers.create()) {
            assertThat(TwemproxyTopology.isAvailable()).isFalse();
            assertThatThrownBy(() -> own.startTwemproxy(2))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("apt-get install nutcracker");
            assertThat(own.nodes()).isEmpty();
        } finally {
            if (original == null) {
                System.clearProperty(TwemproxyTopology.EXECUTABLE_PROPERTY);
            } else {
                System.setProperty(TwemproxyTopology.EXECUTABLE_PROPERTY, original);
            }
        }
    }

    /** The shared proxy, started on first use and emptied for each test; skips the test without nutcracker. */
    private TwemproxyTopology proxy() {
        assumeTrue(TwemproxyTopology.isAvailable(), TwemproxyTopology.SKIP_MESSAGE);
        if (proxy == null) {
            long begin = System.nanoTime();
            proxy = servers.startTwemproxy(2);
            LOG.info("{} started in {} ms", proxy, (System.nanoTime() - begin) / 1_000_000);
        }
        for (RedisNode shard : proxy.shards()) {
            shard.call("FLUSHALL");
            shard.call("SCRIPT", "FLUSH");
        }
        return proxy;
    }

    /** A key that the proxy puts on shard {@code index}. */
    private static String keyOn(TwemproxyTopology proxy, int index, String prefix) {
        for (int i = 0; i < 1000; i++) {
            String key = prefix + i;
            proxy.call("SET", key, "probe");
            RedisNode shard = proxy.shardHolding(key);
            proxy.call("DEL", key);
            if (shard == proxy.shards().get(index)) {
                return key;
            }
        }
        throw new IllegalStateException("no key with prefix " + prefix + " lands on shard " + index);
    }
}
