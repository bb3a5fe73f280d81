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
 * window in which it may still be felt: its own time, plus the reconnect of a reset connection.
 */
final class ExplorerFaults implements Runnable {

    private final ExplorerSettings settings;

    private final ExplorerJournal journal;

    private final List<RedisNode> masters;

    private final List<FaultProxy> proxies;

    private final Random random;

    private volatile boolean stopped;

    ExplorerFaults(ExplorerSettings settings, ExplorerJournal journal, List<RedisNode> masters, List<FaultProxy> proxies,
            long seed) {
        this.settings = settings;
        this.journal = journal;
        this.masters = masters;
        this.proxies = proxies;
        this.random = new Random(seed);
    }

    void stop() {
        this.stopped = true;
    }

    @Override
    public void run() {
        List<String> kinds = new ArrayList<>(this.settings.faults());
        kinds.remove(ExplorerSettings.LEASE_DELETE); // attached to a release by a worker, not scheduled
        if (kinds.isEmpty()) {
            return;
        }
        long command = ExplorerSettings.COMMAND_TIMEOUT.toMillis();
        try {
            while (!this.stopped) {
                sleep(1000 + this.random.nextInt(2500)); // calm
                long stormEnd = System.nanoTime() + Duration.ofMillis(1000 + this.random.nextInt(3000)).toNanos();
                while (!this.stopped && System.nanoTime() < stormEnd) {
                    String kind = kinds.get(this.random.nextInt(kinds.size()));
                    int service = this.random.nextInt(this.proxies.size());
                    FaultProxy proxy = this.proxies.get(service);
                    long from = System.nanoTime();
                    long recovery = 1000;
                    String detail;
                    switch (kind) {
                        case "reply-delay" -> {
                            long window = 10 + this.random.nextInt(200);
                            long delay = command + 10 + this.random.nextInt(300);
                            proxy.delayReplies(Duration.ofMillis(window), Duration.ofMillis(delay));
                            detail = "replies of " + window + " ms delayed by " + delay + " ms";
                            sleep(window + delay);
                        }
                        case "reply-drop" -> {
                            long window = 20 + this.random.nextInt((int) command);
                            detail = "replies dropped for " + window + " ms, then reset";
                            proxy.dropRepliesThenReset(Duration.ofMillis(window));
                            recovery = 2000;
                        }
                        case "reset" -> {
                            detail = "connections reset";
                            proxy.reset();
                            recovery = 2000;
                        }
                        case "stall" -> {
                            long stall = 100 + this.random.nextInt(1200);
                            detail = "stalled for " + stall + " ms";
                            proxy.stall(Duration.ofMillis(stall));
                            sleep(stall);
                        }
                        default -> {
                            long pause = 100 + this.random.nextInt(1600);
                            RedisNode paused = this.masters.get(this.random.nextInt(this.masters.size()));
                            detail = "Redis " + this.masters.indexOf(paused) + " paused for " + pause + " ms";
                            paused.pause();
                            try {
                                sleep(pause);
                            }
                            finally {
                                paused.resume();
                            }
                            service = -1;
                        }
                    }
                    long to = System.nanoTime();
                    this.journal.fault(kind, from, to + Duration.ofMillis(recovery).toNanos());
                    this.journal.log("FAULT " + (service >= 0 ? "service " + service + ": " : "") + detail);
                    sleep(100 + this.random.nextInt(500));
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private void sleep(long millis) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofMillis(millis).toNanos();
        while (!this.stopped && System.nanoTime() < end) {
            Thread.sleep(Math.min(50, Math.max(1, (end - System.nanoTime()) / 1_000_000)));
        }
    }
}
