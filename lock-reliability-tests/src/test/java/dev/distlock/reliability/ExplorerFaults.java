package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.distlock.test.FaultProxy;
import dev.distlock.test.RedisNode;

/**
 * The fault schedule of one run, drawn from the seed: storms of faults (a few seconds, a fault every 0.2-1 s) between
 * calm stretches (so that the wake-up check sees freed locks with no fault nearby). Each fault is recorded with the
 * window in which it may still be felt: its own time, plus the reconnect of a reset connection. Each fault is also
 * recorded in the run's {@link ExplorerSchedule}; a run given a schedule applies its faults instead of drawing them.
 */
final class ExplorerFaults implements Runnable {

    private final ExplorerRun run;

    private final ExplorerSettings settings;

    private final ExplorerJournal journal;

    private final List<RedisNode> masters;

    private final List<FaultProxy> proxies;

    private final Random random;

    private volatile boolean stopped;

    ExplorerFaults(ExplorerRun run, List<RedisNode> masters, List<FaultProxy> proxies, long seed) {
        this.run = run;
        this.settings = run.settings();
        this.journal = run.journal();
        this.masters = masters;
        this.proxies = proxies;
        this.random = new Random(seed);
    }

    void stop() {
        this.stopped = true;
    }

    @Override
    public void run() {
        try {
            if (this.run.schedule() != null) {
                for (ExplorerSchedule.Fault fault : this.run.schedule().scheduledFaults()) {
                    sleep(fault.atMillis() - this.run.sinceClientsStarted());
                    if (this.stopped) {
                        return;
                    }
                    apply(fault.kind(), fault.target(), fault.a(), fault.b());
                }
                return;
            }
            drawn();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** The seeded schedule: each fault drawn, then applied and recorded. */
    private void drawn() throws InterruptedException {
        List<String> kinds = new ArrayList<>(this.settings.faults());
        kinds.remove(ExplorerSettings.LEASE_DELETE); // attached to a release by a worker, not scheduled
        if (kinds.isEmpty()) {
            return;
        }
        long command = ExplorerSettings.COMMAND_TIMEOUT.toMillis();
        while (!this.stopped) {
            sleep(1000 + this.random.nextInt(2500)); // calm
            long stormEnd = System.nanoTime() + Duration.ofMillis(1000 + this.random.nextInt(3000)).toNanos();
            while (!this.stopped && System.nanoTime() < stormEnd) {
                String kind = kinds.get(this.random.nextInt(kinds.size()));
                int target = this.random.nextInt(this.proxies.size());
                long a = 0;
                long b = 0;
                switch (kind) {
                    case "reply-delay" -> {
                        a = 10 + this.random.nextInt(200);
                        b = command + 10 + this.random.nextInt(300);
                    }
                    case "reply-drop" -> a = 20 + this.random.nextInt((int) command);
                    case "reset" -> {
                    }
                    case "stall" -> a = 100 + this.random.nextInt(1200);
                    default -> {
                        a = 100 + this.random.nextInt(1600);
                        target = this.random.nextInt(this.masters.size());
                    }
                }
                apply(kind, target, a, b);
                sleep(100 + this.random.nextInt(500));
            }
        }
    }

    /**
     * One fault: on proxy {@code target} (a master's index for {@code redis-pause}), with its durations in ms
     * ({@link ExplorerSchedule.Fault}); recorded in the run's schedule and journal.
     */
    private void apply(String kind, int target, long a, long b) throws InterruptedException {
        long from = System.nanoTime();
        this.run.record(new ExplorerSchedule.Fault(this.run.sinceClientsStarted(), kind, target, a, b));
        long recovery = 1000;
        String detail;
        int service = target;
        switch (kind) {
            case "reply-delay" -> {
                this.proxies.get(target).delayReplies(Duration.ofMillis(a), Duration.ofMillis(b));
                detail = "replies of " + a + " ms delayed by " + b + " ms";
                sleep(a + b);
            }
            case "reply-drop" -> {
                detail = "replies dropped for " + a + " ms, then reset";
                this.proxies.get(target).dropRepliesThenReset(Duration.ofMillis(a));
                recovery = 2000;
            }
            case "reset" -> {
                detail = "connections reset";
                this.proxies.get(target).reset();
                recovery = 2000;
            }
            case "stall" -> {
                detail = "stalled for " + a + " ms";
                this.proxies.get(target).stall(Duration.ofMillis(a));
                sleep(a);
            }
            case "redis-pause" -> {
                RedisNode paused = this.masters.get(target);
                detail = "Redis " + target + " paused for " + a + " ms";
                paused.pause();
                try {
                    sleep(a);
                }
                finally {
                    paused.resume();
                }
                service = -1;
            }
            default -> throw new IllegalArgumentException("unknown fault kind '" + kind + "'");
        }
        long to = System.nanoTime();
        this.journal.fault(kind, from, to + Duration.ofMillis(recovery).toNanos());
        this.journal.log("FAULT " + (service >= 0 ? "service " + service + ": " : "") + detail);
    }

    private void sleep(long millis) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
        while (!this.stopped && System.nanoTime() < end) {
            Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
        }
    }
}
