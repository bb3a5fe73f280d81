package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.UncheckedIOException;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A TLS-only node answers only TLS clients that trust its authority and, with client auth, show a certificate. */
@RedisTest
class TlsNodeTest {

    private static TlsFiles files;

    @BeforeAll
    static void certificates() {
        assumeTrue(TlsFiles.isAvailable(), TlsFiles.SKIP_MESSAGE);
        files = TlsFiles.create();
    }

    @Test
    void aTlsOnlyNodeAnswersOnlyOverTls(RedisServers servers) {
        RedisNode node = servers.start(RedisNodeConfig.defaults().tls(files, true).requirePass("tls secret"));

        assertThat(node.uri()).startsWith("rediss://127.0.0.1:");
        assertThat(node.call("SET", "k", "v")).isEqualTo("OK");
        assertThat(node.call("CONFIG", "GET", "port")).isEqualTo("port\n0");
        assertThat(node.call("GET", "k")).isEqualTo("v");
        assertThatThrownBy(() -> RespClient.call(node.host(), node.port(), null, null, "tls secret",
                Duration.ofSeconds(2), "GET", "k")).isInstanceOf(UncheckedIOException.class);
        TlsFiles other = TlsFiles.create();
        assertThatThrownBy(() -> RespClient.call(node.host(), node.port(), other.clientContext(), null, "tls secret",
                Duration.ofSeconds(2), "GET", "k")).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("PKIX");
    }
}
