package dev.distlock.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class Crc16Test {

    @Test
    void isCrc16Xmodem() {
        assertThat(Crc16.of("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x31C3);
        assertThat(Crc16.of(new byte[0])).isZero();
        assertThat(Crc16.of("x123456789y".getBytes(StandardCharsets.US_ASCII), 1, 10)).isEqualTo(0x31C3);
    }

    @Test
    void slotsMatchTheRedisClusterSpecification() {
        assertThat(ClusterTopology.slotOf("foo")).isEqualTo(12182);
        assertThat(ClusterTopology.slotOf("bar")).isEqualTo(5061);
        assertThat(ClusterTopology.slotOf("{user1000}.following")).isEqualTo(ClusterTopology.slotOf("user1000"));
        assertThat(ClusterTopology.slotOf("{user1000}.followers")).isEqualTo(ClusterTopology.slotOf("user1000"));
        // only the first '{' and the first '}' after it count; an empty tag means the whole key
        assertThat(ClusterTopology.slotOf("foo{}{bar}")).isEqualTo(Crc16.of("foo{}{bar}".getBytes(StandardCharsets.UTF_8)) & 16383);
        assertThat(ClusterTopology.slotOf("foo{{bar}}zap")).isEqualTo(ClusterTopology.slotOf("{bar"));
        assertThat(ClusterTopology.slotOf("foo{bar}{zap}")).isEqualTo(ClusterTopology.slotOf("bar"));
        assertThat(ClusterTopology.slotOf("no}tag{")).isEqualTo(Crc16.of("no}tag{".getBytes(StandardCharsets.UTF_8)) & 16383);
    }
}
