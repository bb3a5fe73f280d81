package dev.distlock.bench.scenarios;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import dev.distlock.bench.clients.LockClient;
import dev.distlock.bench.redis.MonitorTap;

/** What one uncontended lock cycle sends to Redis, recorded with MONITOR outside any timed iteration. */
final class ProtocolTrace {

    private static final int CYCLES = 20;

    private ProtocolTrace() {
    }

    static String ofOneCycle(LockClient client, int port, String key) throws Exception {
        for (int i = 0; i < 5; i++) {
            client.acquire(key).release();
        }
        List<MonitorTap.Command> commands;
        try (MonitorTap tap = new MonitorTap(port)) {
            for (int i = 0; i < CYCLES; i++) {
                client.acquire(key).release();
            }
            commands = tap.stop();
        }
        Map<String, Long> requests = new TreeMap<>();
        Map<String, Long> inside = new TreeMap<>();
        for (MonitorTap.Command command : commands) {
            (command.fromScript() ? inside : requests).merge(command.name(), 1L, Long::sum);
        }
        return String.format(Locale.ROOT, "%.2f requests/cycle (%s); %.2f commands inside scripts (%s)",
                total(requests) / (double) CYCLES, Notes.perUnit(requests, CYCLES), total(inside) / (double) CYCLES,
                Notes.perUnit(inside, CYCLES));
    }

    static long total(Map<String, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }
}
