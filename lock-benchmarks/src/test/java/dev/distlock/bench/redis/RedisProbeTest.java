package dev.distlock.bench.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class RedisProbeTest {

    private static final String COMMAND_STATS = String.join("\r\n", "# Commandstats",
            "cmdstat_evalsha:calls=20,usec=175,usec_per_call=8.75,rejected_calls=0,failed_calls=0",
            "cmdstat_hget:calls=30,usec=10,usec_per_call=0.33,rejected_calls=0,failed_calls=0",
            "cmdstat_info:calls=2,usec=90,usec_per_call=45.00,rejected_calls=0,failed_calls=0",
            "cmdstat_config|resetstat:calls=1,usec=60,usec_per_call=60.00,rejected_calls=0,failed_calls=0",
            "cmdstat_client|setinfo:calls=2,usec=3,usec_per_call=1.50,rejected_calls=0,failed_calls=2", "");

    @Test
    void commandStatsLeaveOutTheHarnessesOwnCommands() {
        assertThat(RedisProbe.commandStats(COMMAND_STATS, "calls"))
            .isEqualTo(Map.of("evalsha", 20L, "hget", 30L, "client|setinfo", 2L));
        assertThat(RedisProbe.commandStats(COMMAND_STATS, "usec"))
            .isEqualTo(Map.of("evalsha", 175L, "hget", 10L, "client|setinfo", 3L));
    }

    @Test
    void aCommandsCallsAreNotItsRejectedOrFailedCalls() {
        // CycleInstructions counts renewals by cmdstat_pexpire's calls
        String reply = "# Commandstats\r\n"
                + "cmdstat_hexists:calls=18836,usec=248574,usec_per_call=13.20,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_pexpire:calls=101381,usec=3106005,usec_per_call=30.64,rejected_calls=7,failed_calls=3\r\n"
                + "cmdstat_pexpireat:calls=5,usec=10,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n";
        assertThat(RedisProbe.commandStats(reply, "calls")).containsEntry("pexpire", 101_381L)
            .containsEntry("pexpireat", 5L);
        assertThat(RedisProbe.commandStats("# Commandstats\r\ncmdstat_get:calls=1,usec=1,usec_per_call=1.00,"
                + "rejected_calls=0,failed_calls=0\r\n", "calls")).doesNotContainKey("pexpire");
    }

    @Test
    void cpuIsSystemPlusUserTimeInMicroseconds() {
        String cpu = "# CPU\r\nused_cpu_sys:1.500000\r\nused_cpu_user:0.250001\r\nused_cpu_sys_children:9.0\r\n"
                + "used_cpu_sys_main_thread:1.4\r\n";
        assertThat(RedisProbe.cpuMicros(cpu)).isEqualTo(1_750_001L);
    }

    @Test
    void usageCountsScriptsApartAndAddsUp() {
        ServerUsage usage = new ServerUsage(Map.of("evalsha", 20L, "hget", 30L), Map.of("evalsha", 175L), 500);
        assertThat(usage.totalCalls()).isEqualTo(50);
        assertThat(usage.scriptCalls()).isEqualTo(20);
        assertThat(usage.scriptMicros()).isEqualTo(175);
        ServerUsage twice = usage.plus(usage);
        assertThat(twice.calls()).containsEntry("hget", 60L);
        assertThat(twice.cpuMicros()).isEqualTo(1000);
    }

    @Test
    void monitorLinesTellScriptCommandsFromClientRequests() {
        assertThat(MonitorTap.parse("+1700000000.123456 [0 127.0.0.1:50412] \"EVALSHA\" \"abc\" \"1\""))
            .isEqualTo(new MonitorTap.Command(false, "evalsha", 1_700_000_000_123_456L));
        assertThat(MonitorTap.parse("+1700000000.123457 [0 lua] \"hget\" \"k\" \"owner\""))
            .isEqualTo(new MonitorTap.Command(true, "hget", 1_700_000_000_123_457L));
        assertThat(MonitorTap.parse("+OK")).isNull();
    }
}
