package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The server executable chosen for a run ({@code distlock.test.redis-server}) is the one every node runs: single
 * nodes, replicas, Sentinels, Cluster nodes and Twemproxy's shards. Run the class with
 * {@code -Ddistlock.test.redis-server=/usr/bin/valkey-server} to check another server; without it, the embedded one.
 */
@Timeout(90)
class RedisServerChoiceTest {

    private static final Path VALKEY = Paths.get("/usr/bin/valkey-server");

    private final RedisServers servers = RedisServers.create();

    @AfterEach
    void closeServers() {
        servers.close();
    }

    @Test
    void everyNodeOfEveryTopologyRunsTheChosenServer() throws IOException {
        servers.start();
        servers.startSentinelTopology("choice");
        servers.startCluster(3, 0);
        if (TwemproxyTopology.isAvailable()) {
            servers.startTwemproxy(2);
        }

        Path executable = RedisBinary.executable().toRealPath();
        assertThat(servers.nodes()).hasSizeGreaterThanOrEqualTo(1 + 5 + 3);
        for (RedisNode node : servers.nodes()) {
            assertThat(Paths.get("/proc", Long.toString(node.pid()), "exe").toRealPath()).as(node.toString())
                    .isEqualTo(executable);
            assertThat(serverOf(node.call("INFO", "server"))).as(node.toString()).isEqualTo(RedisServers.server());
        }
    }

    @Test
    void theServerIsNamedWithItsVersion() {
        if (RedisBinary.isChosen()) {
            assertThat(RedisServers.server()).isEqualTo(RedisBinary.describe(RedisBinary.chosen().orElseThrow()));
        } else {
            assertThat(RedisServers.server()).isEqualTo("Redis " + RedisBinary.VERSION);
        }
        assumeTrue(Files.isExecutable(VALKEY), VALKEY + " is not installed");
        assertThat(RedisBinary.describe(VALKEY)).matches("Valkey \\d+\\.\\d+\\.\\d+");
    }

    @Test
    void aNodeGivenItsOwnExecutableRunsThatOne() throws IOException {
        assumeTrue(Files.isExecutable(VALKEY), VALKEY + " is not installed");
        RedisNode node = servers.start(RedisNodeConfig.defaults().launchedWith(VALKEY, Map.of()));

        assertThat(Paths.get("/proc", Long.toString(node.pid()), "exe").toRealPath()).isEqualTo(VALKEY.toRealPath());
        assertThat(node.call("INFO", "server")).contains("server_name:valkey");
    }

    @Test
    void aSettingThatNamesNoExecutableFailsNamingTheSetting() {
        String original = System.getProperty(RedisBinary.PROPERTY);
        try {
            System.setProperty(RedisBinary.PROPERTY, "/no/such/valkey-server");
            assertThatThrownBy(RedisBinary::chosen).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("distlock.test.redis-server=/no/such/valkey-server names no executable file");
            System.setProperty(RedisBinary.PROPERTY, "no-such-server-on-path");
            assertThatThrownBy(RedisBinary::chosen).hasMessageContaining("no executable file on PATH");
            System.setProperty(RedisBinary.PROPERTY, "sh");
            assertThat(RedisBinary.chosen()).hasValueSatisfying(path -> assertThat(path).isAbsolute()
                    .hasFileName("sh"));
            assertThatThrownBy(RedisBackend.CONTAINER::resolve).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("only the 'binary' backend runs");
            assertThat(RedisBackend.AUTO.resolve()).isEqualTo(RedisBackend.BINARY);
        } finally {
            if (original == null) {
                System.clearProperty(RedisBinary.PROPERTY);
            } else {
                System.setProperty(RedisBinary.PROPERTY, original);
            }
        }
    }

    /** "Valkey 8.0.1" or "Redis 7.0.15" from INFO server (Valkey reports redis_version 7.2.4 for clients' sake). */
    private static String serverOf(String info) {
        Map<String, String> fields = new HashMap<>();
        for (String line : info.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return "valkey".equals(fields.get("server_name")) ? "Valkey " + fields.get("valkey_version")
                : "Redis " + fields.get("redis_version");
    }
}
