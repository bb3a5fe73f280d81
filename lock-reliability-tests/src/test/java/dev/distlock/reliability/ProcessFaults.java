package dev.distlock.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import dev.distlock.reliability.ExplorerSchedule.Fault;

/**
 * The seeded faults of the explorer's process mode, each a {@link Fault} of a schedule: {@code kill} (kill -9 of a
 * client process; it is started again, as a new process, after {@code a} ms), {@code stop} (SIGSTOP of a client
 * process for {@code a} ms, past the watchdog lease and most fixed leases, then SIGCONT), {@code redis-restart} (kill
 * -9 of the lock's Redis and a fresh, empty redis-server on its port after {@code a} ms) and {@code redis-pause}
 * (SIGSTOP of the lock's Redis for {@code a} ms); on a Redis Cluster ({@link ProcessCluster}) {@code failover} instead
 * of the last two: the master of key {@code b}'s slot paused until its replica took over, and {@code a} ms more (a
 * failover takes 2 to 4 s more, counted before the next gap). Gaps of 1.5 to 4 s lie between them, one in two 6 to
 * 9 s.
 */
final class ProcessFaults {

    static final List<String> KINDS = List.of("kill", "stop", "redis-restart", "redis-pause");

    /** The kinds of a run on a Redis Cluster. */
    static final List<String> CLUSTER_KINDS = List.of("kill", "stop", "failover");

    /** What a failover takes beyond its drawn {@code a}: the node timeout, the election, the rejoin. */
    static final long FAILOVER_ALLOWANCE_MILLIS = 3000;

    private ProcessFaults() {
    }

    /** The faults a seed draws for a run of {@code millis} ms of client time with {@code clients} clients. */
    static List<Fault> draw(long seed, long millis, int clients) {
        return draw(seed, millis, clients, KINDS);
    }

    /** The same, drawing only the given kinds ({@code explorer.process.faults}). */
    static List<Fault> draw(long seed, long millis, int clients, List<String> kinds) {
        boolean cluster = kinds.contains("failover");
        if (!(cluster ? CLUSTER_KINDS : KINDS).containsAll(kinds)) {
            throw new IllegalArgumentException("explorer.process.faults: a comma-separated subset of " + KINDS
                    + " (on a Redis Cluster: of " + CLUSTER_KINDS + "), but was " + kinds);
        }
        Random random = new Random(seed ^ 0x5DEECE66DL * 31);
        List<Fault> faults = new ArrayList<>();
        long at = 1000 + random.nextInt(2000);
        while (at < millis - 1500) {
            String kind = kinds.get(random.nextInt(kinds.size()));
            int target = random.nextInt(clients);
            long a = switch (kind) {
                case "kill" -> 300 + random.nextInt(1200);
                case "stop" -> 1800 + random.nextInt(1700);
                case "redis-restart", "failover" -> random.nextInt(1500);
                default -> 300 + random.nextInt(2700);
            };
            boolean failover = kind.equals("failover");
            faults.add(new Fault(at, kind, target, a, failover ? random.nextInt(ProcessOps.KEYS.size()) : 0));
            at += failover ? FAILOVER_ALLOWANCE_MILLIS : 0;
            // one gap in two is a calm stretch long enough for the wake-up check to judge waits in it (3 to 6 s)
            at += a + (random.nextInt(2) == 0 ? 6000 + random.nextInt(3000) : 1500 + random.nextInt(2500));
        }
        return faults;
    }

    /** What the run gives the faults to act on. */
    interface Target {

        /** The client's current process, null while it is not running. */
        ChildJvm client(int index);

        /** The client's current process name. */
        String name(int index);

        /** Starts a new process for the client. */
        void restartClient(int index) throws Exception;

        dev.distlock.test.RedisNode redis();

        /** Fails over the cluster's master of {@code key}'s slot (see {@link ProcessCluster#failover}). */
        ProcessHistory.Fault failover(String key, long pastMillis) throws InterruptedException;

        void record(ProcessHistory.Fault fault);
    }

    /** Performs the faults at their times (ms since {@code t0}), until {@code end}; returns how many ran. */
    static int perform(List<Fault> faults, long t0, long end, Target target) throws Exception {
        int ran = 0;
        for (Fault fault : faults) {
            sleepUntil(t0 + fault.atMillis() * 1_000_000);
            if (System.nanoTime() - end >= 0) {
                break;
            }
            ChildJvm client = target.client(fault.target());
            String name = target.name(fault.target());
            switch (fault.kind()) {
                case "kill" -> {
                    if (client == null) {
                        continue;
                    }
                    client.killHard();
                    long killed = System.nanoTime();
                    target.record(new ProcessHistory.Fault("kill", name, killed, killed));
                    sleepUntil(System.nanoTime() + fault.a() * 1_000_000);
                    if (end - System.nanoTime() > 2_000_000_000L) {
                        target.restartClient(fault.target());
                    }
                }
                case "stop" -> {
                    if (client == null) {
                        continue;
                    }
                    client.signal("STOP");
                    long stopped = System.nanoTime();
                    sleepUntil(stopped + fault.a() * 1_000_000);
                    client.signal("CONT");
                    target.record(new ProcessHistory.Fault("stop", name, stopped, System.nanoTime()));
                }
                case "redis-restart" -> {
                    target.redis().kill();
                    long killed = System.nanoTime();
                    sleepUntil(killed + fault.a() * 1_000_000);
                    long started = System.nanoTime();
                    target.record(new ProcessHistory.Fault("redis-restart", "redis", killed, started));
                    target.redis().restart();
                }
                case "redis-pause" -> {
                    long paused = System.nanoTime();
                    target.redis().pause();
                    sleepUntil(System.nanoTime() + fault.a() * 1_000_000);
                    target.redis().resume();
                    target.record(new ProcessHistory.Fault("redis-pause", "redis", paused, System.nanoTime()));
                }
                case "failover" -> {
                    ProcessHistory.Fault failover = target.failover(ProcessOps.KEYS.get((int) fault.b()), fault.a());
                    if (failover == null) {
                        continue;
                    }
                    target.record(failover);
                }
                default -> throw new IllegalArgumentException("not a process-mode fault: " + fault.kind());
            }
            ran++;
        }
        return ran;
    }

    static void sleepUntil(long nanos) throws InterruptedException {
        long left = nanos - System.nanoTime();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }
}
