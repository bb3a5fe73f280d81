package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import dev.distlock.LockHandle;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * The first lock call after the scripts are gone (a restart, a failover to a replica that never saw them, {@code SCRIPT
 * FLUSH}) costs one round trip more than before, as with a plain EVAL fallback: with nothing else of the connection's
 * unanswered, the refused call goes again as EVAL at once, and the script set loads after it. Were the set loaded
 * first, a command another part of the service sends meanwhile on the shared connection (the watchdog's {@code WAIT}
 * for a replica, which blocks the connection up to its timeout on a master that has none) could get ahead of the call
 * and make it wait out its timeout, as it did after a Sentinel failover (SemaphoreSentinelTest). Redis's own record of
 * the commands ({@code MONITOR}) shows the order.
 */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScriptFlushFirstCallTest {

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
    void theCallThatMetNoscriptOnAnIdleConnectionGoesAgainAsEvalBeforeTheSetLoads() throws Exception {
        RedisLockService locks = this.clients.service();
        locks.acquire("warm").release(); // the shared connection is open and the set loaded
        this.redis.call("SCRIPT", "FLUSH");
        List<String> commands;
        try (Socket monitor = new Socket("127.0.0.1", this.redis.port())) {
            monitor.setSoTimeout(5_000);
            OutputStream out = monitor.getOutputStream();
            out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(monitor.getInputStream(),
                    StandardCharsets.UTF_8));
            assertThat(in.readLine()).isEqualTo("+OK");

            LockHandle lock = locks.acquire("first-after-flush");
            lock.release();
            commands = commandsUntil(in, "\"script\" \"exists\"", Duration.ofSeconds(5));
        }
        int evalsha = indexOf(commands, "\"evalsha\"");
        int eval = indexOf(commands, "\"eval\"");
        int load = indexOf(commands, "\"script\" \"load\"");
        assertThat(evalsha).as("the call as sent first: %s", commands).isGreaterThanOrEqualTo(0);
        assertThat(load).as("the set loaded: %s", commands).isGreaterThan(evalsha);
        assertThat(eval).as("the refused call sent again as EVAL, before the set loads: %s", commands)
            .isGreaterThan(evalsha).isLessThan(load);
    }

    /** The service's commands (not those scripts run) that MONITOR shows, up to the first containing {@code last}. */
    private static List<String> commandsUntil(BufferedReader in, String last, Duration within) throws Exception {
        List<String> commands = new ArrayList<>();
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            String line;
            try {
                line = in.readLine();
            }
            catch (SocketTimeoutException ex) {
                break;
            }
            if (line == null) {
                break;
            }
            if (line.contains(" lua]")) {
                continue;
            }
            String command = line.substring(line.indexOf(']') + 1).trim().toLowerCase(Locale.ROOT);
            commands.add(command.length() > 40 ? command.substring(0, 40) : command);
            if (command.contains(last)) {
                break;
            }
        }
        return commands;
    }

    private static int indexOf(List<String> commands, String prefix) {
        for (int i = 0; i < commands.size(); i++) {
            if (commands.get(i).startsWith(prefix)) {
                return i;
            }
        }
        return -1;
    }
}
