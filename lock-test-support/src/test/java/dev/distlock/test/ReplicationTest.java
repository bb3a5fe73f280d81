package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReplicationTest {

    private final RedisServers servers = RedisServers.create();

    @AfterEach
    void closeServers() {
        servers.close();
    }

    @Test
    void returnsOnceTheReplicaAppliedEveryWriteAndFailsWhileItCannot() {
        RedisNode master = servers.start();
        RedisNode replica = servers.startReplicaOf(master);
        for (int i = 0; i < 100; i++) {
            master.call("SET", "k" + i, "v" + i);
        }

        Replication.awaitCaughtUp(master, List.of(replica), Duration.ofSeconds(10));
        assertThat(replica.call("GET", "k99")).as("no polling needed after it returned").isEqualTo("v99");

        replica.pause();
        try {
            master.call("SET", "late", "x");
            assertThatThrownBy(() -> Replication.awaitCaughtUp(master, List.of(replica), Duration.ofMillis(300)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("did not reach offset");
        } finally {
            replica.resume();
        }
        Replication.awaitCaughtUp(master, List.of(replica), Duration.ofSeconds(10));
        assertThat(replica.call("GET", "late")).isEqualTo("x");
    }
}
