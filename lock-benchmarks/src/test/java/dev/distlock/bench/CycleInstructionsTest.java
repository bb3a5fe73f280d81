package dev.distlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CycleInstructionsTest {

    @Test
    void countsThePexpireCallsOfACommandStatsReplyNotItsRejectedOrFailedCalls() {
        String reply = "# Commandstats\r\n"
                + "cmdstat_hexists:calls=18836,usec=248574,usec_per_call=13.20,rejected_calls=0,failed_calls=0\r\n"
                + "cmdstat_pexpire:calls=101381,usec=3106005,usec_per_call=30.64,rejected_calls=7,failed_calls=3\r\n"
                + "cmdstat_pexpireat:calls=5,usec=10,usec_per_call=2.00,rejected_calls=0,failed_calls=0\r\n";
        assertThat(CycleInstructions.pexpireCalls(reply)).isEqualTo(101_381);
    }

    @Test
    void countsNoneBeforeAnyPexpireRan() {
        assertThat(CycleInstructions.pexpireCalls("# Commandstats\r\ncmdstat_get:calls=1,usec=1,usec_per_call=1.00,"
                + "rejected_calls=0,failed_calls=0\r\n")).isZero();
    }
}
