package dev.distlock.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;

/**
 * The operations of a process-mode client ({@link ProcessClientMain}): each draws from its worker's random state a
 * key (two exclusive keys, a fair key, a semaphore of {@link #LIMIT} permits taken one or two at a time), a wait, a
 * lease (the watchdog's or a fixed one), a blocking or {@code async()} call, a section (now and then past a fixed
 * lease), a fenced write for locks, and a release in one of three ways; and reports each step.
 */
final class ProcessOps {

    static final int WORKERS = 2;

    static final String FAIR = "pf";

    static final String SEMAPHORE = "ps";

    static final int LIMIT = 3;

    /** The section of a long hold: waiters behind it wait past the wake-up check's 2.5 s. */
    static final long LONG_HOLD_MILLIS = 3500;

    static final List<String> KEYS = List.of("pa", "pb", FAIR, SEMAPHORE);

    /** Assigns or drops a handle's id for the deadline reports. */
    interface Tracker {
        long track(long id, LockHandle handle);
    }

    private final RedisLockService locks;

    private final StringRedisTemplate resource;

    private final Consumer<String> out;

    private final Tracker tracker;

    ProcessOps(RedisLockService locks, StringRedisTemplate resource, Consumer<String> out, Tracker tracker) {
        this.locks = locks;
        this.resource = resource;
        this.out = out;
        this.tracker = tracker;
    }

    /** The ops of one worker of one client in a schedule's lines: {atMillis, state} each. */
    static List<long[]> opsOf(List<String> lines, String client, int worker) {
        List<long[]> ops = new ArrayList<>();
        String who = client + "w" + worker;
        for (String line : lines) {
            String[] parts = line.trim().split("\\s+");
            if (parts.length == 5 && parts[0].equals("op") && parts[1].equals(who)) {
                ops.add(new long[] { Long.parseLong(parts[2]), Long.parseUnsignedLong(parts[3], 16) });
            }
        }
        return ops;
    }

    /** Draws operations until {@code end} (nanoTime), or performs {@code scheduled} ones, each not before its time. */
    void work(int worker, long seed, long t0, long end, List<long[]> scheduled) {
        ExplorerRandom random = new ExplorerRandom(seed);
        sleepUntil(t0, end);
        int next = 0;
        while (System.nanoTime() - end < 0) {
            if (scheduled != null) {
                while (next < scheduled.size() && t0 + scheduled.get(next)[0] * 1_000_000 - System.nanoTime() < 0) {
                    next++; // its time passed before this process started (a restarted client)
                }
                if (next == scheduled.size()) {
                    return;
                }
                sleepUntil(t0 + scheduled.get(next)[0] * 1_000_000, end);
                if (System.nanoTime() - end >= 0) {
                    return;
                }
                random.state(scheduled.get(next++)[1]);
            }
            long state = random.state();
            long at = (System.nanoTime() - t0) / 1_000_000;
            String key = KEYS.get(random.nextInt(KEYS.size()));
            this.out.accept("O " + worker + " " + at + " " + Long.toHexString(state) + " " + key);
            operate(key, random, end);
            if (scheduled == null) {
                sleepUntil(System.nanoTime() + random.nextInt(300) * 1_000_000L, end);
            }
        }
    }

    /**
     * One operation. Two in five wait 5 s and one watchdog hold in twenty lasts {@link #LONG_HOLD_MILLIS} (unless it
     * would outlast the run), so that in calm stretches callers wait past the wake-up check's 2.5 s and are woken by
     * a release (or found not woken); a semaphore step takes one to all three permits.
     */
    private void operate(String key, ExplorerRandom random, long end) {
        int permits = key.equals(SEMAPHORE) ? 1 + random.nextInt(LIMIT) : 1;
        int draw = random.nextInt(10);
        Duration wait = Duration.ofMillis(draw < 2 ? 0 : draw < 6 ? 200 + random.nextInt(2800) : 5000);
        long lease = random.nextBoolean() ? 0 : 600 + random.nextInt(1400);
        boolean async = random.nextInt(10) < 3;
        int kind = random.nextInt(100);
        long section = kind < 3 && lease > 0 ? lease + 300 : 20 + random.nextInt(480);
        if (kind >= 95 && lease == 0 && System.nanoTime() + (wait.toMillis() + LONG_HOLD_MILLIS) * 1_000_000 < end) {
            section = LONG_HOLD_MILLIS;
        }
        int release = random.nextInt(3);
        LockOptions options = ProcessClientMain.options(key, permits, wait, lease);
        long asked = System.nanoTime();
        LockHandle handle;
        try {
            handle = async ? this.locks.async().acquire(key, options).get(wait.toMillis() + 5000, TimeUnit.MILLISECONDS)
                    : this.locks.acquire(key, options);
        }
        catch (ExecutionException ex) {
            this.out.accept("N " + key + " " + permits + " " + asked + " " + System.nanoTime() + " "
                    + ex.getCause().getClass().getSimpleName());
            return;
        }
        catch (Exception ex) {
            this.out.accept("N " + key + " " + permits + " " + asked + " " + System.nanoTime() + " "
                    + ex.getClass().getSimpleName());
            return;
        }
        long granted = System.nanoTime();
        long id = this.tracker.track(0, null); // an id, reported before any deadline report of the handle
        this.out.accept("G " + id + " " + key + " " + permits + " " + handle.fencingToken() + " " + asked + " "
                + granted + " " + lease);
        this.tracker.track(id, handle);
        handle.onLeaseLost(lost -> this.out.accept("L " + id + " " + System.nanoTime()));
        sleepUntil(granted + section * 500_000, Long.MAX_VALUE);
        if (!key.equals(SEMAPHORE)) {
            boolean accepted = new FencedResource(this.resource, "fence:" + key).write(handle.fencingToken());
            this.out.accept("A " + id + " " + System.nanoTime() + " " + (accepted ? "accepted" : "rejected"));
        }
        sleepUntil(granted + section * 1_000_000, Long.MAX_VALUE);
        boolean held = handle.isHeld();
        long deadline = ProcessClientMain.nanos(handle.leaseDeadline());
        this.out.accept("E " + id + " " + System.nanoTime() + " " + held + " " + deadline);
        long sent = System.nanoTime();
        String outcome = "ok";
        try {
            if (release == 0) {
                handle.release();
            }
            else if (release == 1) {
                handle.releaseAsync().get(10, TimeUnit.SECONDS);
            }
            else {
                handle.close();
            }
        }
        catch (ExecutionException ex) {
            outcome = ex.getCause().getClass().getSimpleName();
        }
        catch (Exception ex) {
            outcome = ex.getClass().getSimpleName();
        }
        this.tracker.track(id, null);
        this.out.accept("R " + id + " " + sent + " " + System.nanoTime() + " " + outcome);
    }

    private static void sleepUntil(long nanos, long end) {
        long until = Math.min(nanos, end) - System.nanoTime();
        if (until > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(until);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
