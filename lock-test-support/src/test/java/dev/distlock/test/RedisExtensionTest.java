package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

@RedisTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RedisExtensionTest {

    private static RedisNode firstNode;
    private static RedisServers firstServers;

    @Test
    @Order(1)
    void injectsARunningNodeAndServers(RedisNode node, RedisServers servers) {
        firstNode = node;
        firstServers = servers;

        assertThat(node.call("PING")).isEqualTo("PONG");
        node.call("SET", "leak", "v");
        node.call("SCRIPT", "LOAD", "return 1");
        assertThat(servers.start().port()).isNotEqualTo(node.port());
    }

    @Test
    @Order(2)
    void nextTestSeesTheSameServerWithoutTheData(RedisNode node, RedisServers servers) {
        assertThat(node).isSameAs(firstNode);
        assertThat(servers).isSameAs(firstServers);
        assertThat(node.call("GET", "leak")).isNull();
        assertThat(node.call("SCRIPT", "EXISTS", "e0e1f9fabfc9d4800c877a703b823ac0578ff8db")).isEqualTo("0");
    }

    @Test
    @Order(3)
    void killTheSharedNode(RedisNode node) {
        node.kill();
    }

    @Test
    @Order(4)
    void killedNodeIsRestartedForTheNextTest(RedisNode node) {
        assertThat(node.isRunning()).isTrue();
        assertThat(node.call("PING")).isEqualTo("PONG");
        node.call("CONFIG", "SET", "requirepass", "changed");
        node.pause();
    }

    @Test
    @Order(5)
    void pausedAndReconfiguredNodeIsUsableAgain(RedisNode node) {
        assertThat(node.call("PING")).isEqualTo("PONG");
    }

    @Nested
    class NestedTests {

        @Test
        void nestedClassesShareTheNode(RedisNode node) {
            assertThat(node).isSameAs(firstNode);
        }
    }
}
