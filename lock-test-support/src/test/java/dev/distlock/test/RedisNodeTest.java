package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RedisNodeTest {

    private final RedisServers servers = RedisServers.create();

    @AfterEach
    void closeServers() {
        servers.close();
    }

    @Test
    void answersCommandsAndRendersReplies() {
        RedisNode node = servers.start();

        assertThat(node.host()).isEqualTo("127.0.0.1");
        assertThat(node.uri()).isEqualTo("redis://127.0.0.1:" + node.port());
        assertThat(node.call("PING")).isEqualTo("PONG");
        assertThat(node.call("SET", "k", "v")).isEqualTo("OK");
        assertThat(node.call("GET", "k")).isEqualTo("v");
        assertThat(node.call("GET", "missing")).isNull();
        assertThat(node.call("INCR", "counter")).isEqualTo("1");
        assertThat(node.call("RPUSH", "list", "a", "b", "ü")).isEqualTo("3");
        assertThat(node.call("LRANGE", "list", "0", "-1")).isEqualTo("a\nb\nü");
        assertThat(node.call("MGET", "k", "missing")).isEqualTo("v\n");
        assertThat(node.call("DBSIZE")).isEqualTo("3");
    }

    @Test
    void errorReplyThrowsWithTheServersMessage() {
        RedisNode node = servers.start();
        node.call("SET", "k", "v");

        assertThatThrownBy(() -> node.call("NOSUCHCOMMAND"))
                .isInstanceOf(RedisCallException.class)
                .hasMessageStartingWith("ERR unknown command");
        assertThatThrownBy(() -> node.call("LPUSH", "k", "x"))
                .isInstanceOf(RedisCallException.class)
                .hasMessageStartingWith("WRONGTYPE");
    }

    @Test
    void independentServersHaveTheirOwnPortAndData() {
        var nodes = servers.startIndependent(2);

        nodes.get(0).call("SET", "k", "first");

        assertThat(nodes.get(0).port()).isNotEqualTo(nodes.get(1).port());
        assertThat(nodes.get(1).call("GET", "k")).isNull();
        assertThat(nodes.get(1).call("DBSIZE")).isEqualTo("0");
        assertThat(servers.nodes()).containsExactlyElementsOf(nodes);
    }

    @Test
    void fiveIndependentMastersForRedlockQuorums() {
        var nodes = servers.startIndependent(5);

        assertThat(nodes).hasSize(5);
        assertThat(nodes.stream().map(RedisNode::port).distinct()).hasSize(5);
        assertThat(nodes.stream().map(RedisNode::pid).distinct()).hasSize(5);
        for (int i = 0; i < nodes.size(); i++) {
            RedisNode node = nodes.get(i);
            assertThat(node.call("ROLE")).startsWith("master\n");
            assertThat(node.call("SET", "lock", "owner-" + i, "NX", "PX", "10000")).isEqualTo("OK");
        }
        for (int i = 0; i < nodes.size(); i++) {
            assertThat(nodes.get(i).call("GET", "lock")).isEqualTo("owner-" + i);
            assertThat(nodes.get(i).call("DBSIZE")).isEqualTo("1");
        }

        nodes.get(2).kill();
        assertThat(nodes.stream().filter(RedisNode::isRunning)).hasSize(4);
        assertThat(nodes.get(3).call("GET", "lock")).isEqualTo("owner-3");
    }

    @Test
    void pausedServerTimesOutUntilResumed() {
        RedisNode node = servers.start(RedisNodeConfig.defaults().callTimeout(Duration.ofMillis(300)));

        node.pause();
        long start = System.nanoTime();
        assertThatThrownBy(() -> node.call("PING"))
                .isInstanceOf(UncheckedIOException.class)
                .hasRootCauseInstanceOf(SocketTimeoutException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(node.isRunning()).isTrue();

        node.resume();
        assertThat(node.call("PING")).isEqualTo("PONG");
        node.resume();
        assertThat(node.call(Duration.ofSeconds(1), "PING")).isEqualTo("PONG");
    }

    @Test
    void killedServerRestartsEmptyOnTheSamePort() {
        RedisNode node = servers.start();
        node.call("SET", "k", "v");
        int port = node.port();
        long pid = node.pid();

        node.kill();

        assertThat(node.isRunning()).isFalse();
        assertThat(isAlive(pid)).isFalse();
        assertThatThrownBy(() -> node.call("PING")).isInstanceOf(UncheckedIOException.class);
        node.kill();

        node.restart();

        assertThat(node.port()).isEqualTo(port);
        assertThat(node.pid()).isNotEqualTo(pid);
        assertThat(node.call("DBSIZE")).isEqualTo("0");
    }

    @Test
    void stopIsIdempotentAndRestartWorksAfterIt() {
        RedisNode node = servers.start();
        long pid = node.pid();

        node.stop();
        node.stop();

        assertThat(node.isRunning()).isFalse();
        assertThat(isAlive(pid)).isFalse();
        node.restart();
        assertThat(node.call("PING")).isEqualTo("PONG");
        node.restart();
        assertThat(node.call("PING")).isEqualTo("PONG");
    }

    @Test
    void closingServersStopsEveryProcessIncludingPausedOnes() {
        RedisServers own = RedisServers.create();
        var nodes = own.startIndependent(3);
        nodes.get(1).pause();
        nodes.get(2).kill();
        long[] pids = nodes.stream().mapToLong(RedisNode::pid).toArray();

        own.close();
        own.close();

        for (long pid : pids) {
            assertThat(isAlive(pid)).as("pid %d alive", pid).isFalse();
        }
        assertThat(nodes).noneMatch(RedisNode::isRunning);
        assertThat(own.nodes()).isEmpty();
        assertThatThrownBy(own::start).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(nodes.get(0)::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void replicaReceivesTheMastersWrites() {
        RedisNode master = servers.start();
        RedisNode replica = servers.startReplicaOf(master);

        master.call("SET", "k", "v");

        // Each call() is a connection of its own, so a WAIT would not cover the SET: poll the replica instead.
        assertThat(Poll.until(Duration.ofSeconds(5), () -> "v".equals(replica.call("GET", "k")))).isTrue();
        assertThatThrownBy(() -> replica.call("SET", "k", "w")).hasMessageStartingWith("READONLY");
    }

    @Test
    void requirepassMakesCallAuthenticate() {
        RedisNode node = servers.start(RedisNodeConfig.defaults().requirePass("s3cret pass"));

        assertThat(node.password()).isEqualTo("s3cret pass");
        assertThat(node.call("SET", "k", "v")).isEqualTo("OK");
        assertThatThrownBy(() -> RespClient.call(node.host(), node.port(), null, null, null, Duration.ofSeconds(1),
                "GET", "k"))
                .isInstanceOf(RedisCallException.class)
                .hasMessageStartingWith("NOAUTH");

        RedisNode replica = servers.startReplicaOf(node);
        assertThat(node.call("WAIT", "1", "5000")).isEqualTo("1");
        assertThat(replica.call("GET", "k")).isEqualTo("v");
    }

    @Test
    void authAsAclUser() {
        RedisNode node = servers.start(RedisNodeConfig.defaults()
                .directive("user alice on >wonderland ~* &* +@all")
                .auth("alice", "wonderland"));

        assertThat(node.user()).isEqualTo("alice");
        assertThat(node.call("ACL", "WHOAMI")).isEqualTo("alice");
    }

    @Test
    void extraDirectivesAreApplied() {
        RedisNode node = servers.start(RedisNodeConfig.defaults().directive("maxmemory 10mb"));

        assertThat(node.call("CONFIG", "GET", "maxmemory")).isEqualTo("maxmemory\n10485760");
        assertThat(node.call("CONFIG", "GET", "save")).isEqualTo("save\n");
        assertThat(node.call("CONFIG", "GET", "appendonly")).isEqualTo("appendonly\nno");
    }

    @Test
    void failedStartReportsTheServersOutput() {
        assertThatThrownBy(() -> servers.start(RedisNodeConfig.defaults().directive("no-such-directive 1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited with code")
                .hasMessageContaining("no-such-directive");
        assertThat(servers.nodes()).isEmpty();
    }

    private static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
