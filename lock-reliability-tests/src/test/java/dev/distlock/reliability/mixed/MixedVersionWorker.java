package dev.distlock.reliability.mixed;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

import dev.distlock.LockEvent;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.quorum.QuorumLockService;

/**
 * One service of the mixed-version test ({@code MixedVersionTest}): started twice, once built from the previous
 * layout's commit and once from the current code, against one Redis. It contends on every lock type, then plays
 * ping-pong with the other worker to time wake-ups, and checks each critical section with Redis itself: an occupancy
 * counter per key (1 for an exclusive hold, no writer beside readers, at most the limit of permits), fencing tokens
 * above every token granted exclusively before and above every token released before the call began, no token
 * granted twice, no lost lease, no failed release, and each waiter of one version woken by the other's release well
 * before its re-check could let it in. Prints {@code VIOLATION} lines and a {@code SUMMARY}; exits 1 on any violation.
 *
 * <p>Compiled from a git snapshot of the previous layout's commit too, so it uses only lock-core's public API,
 * Spring Data Redis and the JDK, and its arguments and check keys stay the same from one version to the next:
 * {@code <redis port> <key prefix> <label> <workers> <contention seconds> <wake seconds>}.
 */
public final class MixedVersionWorker {

    /** The lock kinds contended on; {@code quorum} runs over databases 1-3 of the same Redis. */
    static final List<String> KINDS = List.of("exclusive", "lease", "fair", "rw", "multi", "semaphore",
            "fair-semaphore", "quorum");

    /** The kinds whose waiters are woken by a release message (quorum waiters poll). */
    static final List<String> WAKE_KINDS = List.of("exclusive", "lease", "fair", "rw", "multi", "semaphore",
            "fair-semaphore");

    /**
     * The contention phase's watchdog lease; long holds last 1.4 leases. Renewed every third of it, so a watchdog
     * starved by a loaded machine (2 cores, both JVMs starting) still has 1.3 s of slack.
     */
    private static final Duration SHORT_LEASE = Duration.ofSeconds(2);

    /** Quorum mode wants a node timeout (200 ms) of at most a tenth of the lease. */
    private static final Duration QUORUM_LEASE = Duration.ofSeconds(2);

    /**
     * The wake-up service's lease: a waiter that misses the release message re-checks when the holder's lease would
     * run out, capped at 5 s, so it waits about 5 s; a hold and {@link #WAKE_BOUND_MS} is far below that and ten
     * times the slowest wake-up seen.
     */
    private static final Duration WAKE_LEASE = Duration.ofSeconds(10);

    private static final long WAKE_BOUND_MS = 1500;

    private static final long WAKE_HOLD_MS = 100;

    private static final long WAKE_PAUSE_MS = 40;

    private static final int SEMAPHORE_LIMIT = 3;

    /** Enter a section: add to this side's count, read the other side's. */
    private static final RedisScript<List> ENTER = RedisScript.of("""
            local n = redis.call('hincrby', KEYS[1], ARGV[1], ARGV[2])
            local other = 0
            if ARGV[3] ~= '' then other = tonumber(redis.call('hget', KEYS[1], ARGV[3]) or '0') end
            return {n, other}""", List.class);

    /** A token granted exclusively must top every token granted; a shared one every exclusive one. 0 means ok. */
    private static final RedisScript<Long> FENCE = RedisScript.of("""
            local t = tonumber(ARGV[1])
            local all = tonumber(redis.call('hget', KEYS[1], 'all') or '0')
            local x = tonumber(redis.call('hget', KEYS[1], 'x') or '0')
            if redis.call('sadd', KEYS[2], ARGV[1]) == 0 then return 3 end
            if ARGV[2] == 'x' then
              if t <= all then return 1 end
              redis.call('hset', KEYS[1], 'all', ARGV[1], 'x', ARGV[1])
            else
              if t <= x then return 2 end
              if t > all then redis.call('hset', KEYS[1], 'all', ARGV[1]) end
            end
            return 0""", Long.class);

    /** Raises the highest released token of a key. */
    private static final RedisScript<Long> RELEASED = RedisScript.of("""
            if tonumber(ARGV[1]) > tonumber(redis.call('get', KEYS[1]) or '0') then
              redis.call('set', KEYS[1], ARGV[1])
            end
            return 0""", Long.class);

    private final String label;

    private final StringRedisTemplate redis;

    private final String checks;

    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    private MixedVersionWorker(String label, StringRedisTemplate redis, String prefix) {
        this.label = label;
        this.redis = redis;
        this.checks = prefix + "-check:";
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String prefix = args[1];
        String label = args[2];
        int workers = Integer.parseInt(args[3]);
        Duration contention = Duration.ofSeconds(Long.parseLong(args[4]));
        Duration wake = Duration.ofSeconds(Long.parseLong(args[5]));
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        List<StringRedisTemplate> templates = new ArrayList<>();
        for (int db = 0; db < 4; db++) {
            RedisStandaloneConfiguration server = new RedisStandaloneConfiguration("127.0.0.1", port);
            server.setDatabase(db);
            LettuceConnectionFactory factory = new LettuceConnectionFactory(server,
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
            factory.afterPropertiesSet();
            factory.start();
            factories.add(factory);
            templates.add(new StringRedisTemplate(factory));
        }
        MixedVersionWorker worker = new MixedVersionWorker(label, templates.get(0), prefix);
        boolean ok;
        try (RedisLockService contend = RedisLockService.builder(templates.get(0)).keyPrefix(prefix)
            .restartGrace(Duration.ZERO).watchdogLease(SHORT_LEASE).waiterLease(Duration.ofSeconds(3))
            .listener(worker::event).build();
                RedisLockService waking = RedisLockService.builder(templates.get(0)).keyPrefix(prefix)
                    .restartGrace(Duration.ZERO).watchdogLease(WAKE_LEASE).waiterLease(Duration.ofSeconds(30))
                    .listener(worker::event).build();
                QuorumLockService quorum = QuorumLockService.builder(templates.subList(1, 4)).keyPrefix(prefix)
                    .restartGrace(Duration.ZERO).watchdogLease(QUORUM_LEASE).listener(worker::event).build()) {
            worker.barrier("contention", workers);
            worker.runAll(KINDS, 2, (kind, thread) -> worker.contend(kind.equals("quorum") ? quorum : contend, kind,
                    thread, System.nanoTime() + contention.toNanos()));
            worker.barrier("wake", workers);
            worker.runAll(WAKE_KINDS, 1, (kind, thread) -> worker.pingPong(waking, kind,
                    System.nanoTime() + wake.toNanos()));
            worker.barrier("end", workers);
            ok = worker.report();
        }
        catch (RuntimeException | Error ex) {
            say("VIOLATION " + label + " unexpected " + ex);
            ex.printStackTrace(System.out);
            ok = false;
        }
        factories.forEach(LettuceConnectionFactory::destroy);
        System.out.flush();
        System.exit(ok ? 0 : 1);
    }

    private interface KindRun {
        void run(String kind, int thread) throws Exception;
    }

    /** Runs {@code threads} threads per kind at once and waits for all of them (each bounded by its deadline). */
    private void runAll(List<String> kinds, int threads, KindRun run) throws InterruptedException {
        List<Thread> started = new ArrayList<>();
        for (String kind : kinds) {
            for (int i = 0; i < threads; i++) {
                int index = i;
                Thread thread = new Thread(() -> {
                    try {
                        run.run(kind, index);
                    }
                    catch (Throwable ex) {
                        violation(kind, "unexpected " + ex);
                    }
                }, "mixed-" + kind + "-" + i);
                thread.start();
                started.add(thread);
            }
        }
        for (Thread thread : started) {
            thread.join(TimeUnit.SECONDS.toMillis(60));
            if (thread.isAlive()) {
                violation(thread.getName(), "still running after 60 s");
            }
        }
    }

    /**
     * Contends on three keys of one kind until the deadline (at most 400 sections). Thread 0's third section outlives
     * the lease, so the watchdog renews while the other version waits for the key (once: a multi-key hold blocks all).
     */
    private void contend(LockService locks, String kind, int thread, long deadline) throws Exception {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < 400 && System.nanoTime() < deadline; i++) {
            boolean longHold = !kind.equals("lease") && thread == 0 && i == 2;
            long holdMillis = !longHold ? random.nextInt(15)
                    : (kind.equals("quorum") ? QUORUM_LEASE : SHORT_LEASE).toMillis() * 7 / 5;
            LockMode mode = kind.startsWith("fair") ? LockMode.FAIR
                    : kind.equals("rw") ? (random.nextInt(3) == 0 ? LockMode.WRITE : LockMode.READ) : LockMode.EXCLUSIVE;
            LockOptions options = LockOptions.defaults().withMode(mode).withWaitTime(Duration.ofSeconds(10));
            if (kind.equals("lease")) {
                options = options.withLeaseTime(Duration.ofMillis(1500));
                holdMillis = random.nextInt(12) == 0 ? 400 : holdMillis;
            }
            if (kind.endsWith("semaphore")) {
                options = options.withPermits(SEMAPHORE_LIMIT, 1 + random.nextInt(2));
            }
            List<String> keys = new ArrayList<>(List.of(kind + ":0", kind + ":1", kind + ":2"));
            Collections.shuffle(keys, random);
            keys = keys.subList(0, kind.equals("multi") ? 2 : 1);
            section(locks, kind, keys, options, holdMillis, -1);
            count(kind + (longHold ? " long holds" : " sections"));
        }
    }

    /**
     * One thread per kind and worker takes the same key in turn with the other worker: hold, note the release time,
     * release, pause, take again. Each grant that follows the other worker's release while this one waited must come
     * within a hold and {@link #WAKE_BOUND_MS}: only the release message meets it.
     */
    private void pingPong(LockService locks, String kind, long deadline) throws Exception {
        for (int round = 0; round < 100 && System.nanoTime() < deadline; round++) {
            LockMode mode = kind.startsWith("fair") ? LockMode.FAIR
                    : kind.equals("rw") ? (round % 2 == 0 ? LockMode.WRITE : LockMode.READ) : LockMode.EXCLUSIVE;
            LockOptions options = LockOptions.defaults().withMode(mode).withWaitTime(Duration.ofSeconds(8));
            if (kind.equals("lease")) {
                options = options.withLeaseTime(WAKE_LEASE);
            }
            if (kind.endsWith("semaphore")) {
                options = options.withPermits(1);
            }
            List<String> keys = kind.equals("multi") ? List.of("wake-multi:0", "wake-multi:1") : List.of("wake-" + kind);
            section(locks, "wake-" + kind, keys, options, WAKE_HOLD_MS, System.currentTimeMillis());
            Thread.sleep(WAKE_PAUSE_MS); // shorter than a hold: the other worker got the lock, this one waits for it
        }
        if (count("wake-" + kind + " cross-version wake-ups", 0) < 2) {
            violation("wake-" + kind, "fewer than 2 grants woken by the other version's release: nothing was judged");
        }
    }

    /** Takes the lock, checks the section with Redis, holds it, checks the lease, releases; records violations. */
    private void section(LockService locks, String kind, List<String> keys, LockOptions options, long holdMillis,
            long waitStart) throws Exception {
        LockMode mode = options.mode();
        Map<String, Long> floors = new HashMap<>();
        for (String key : keys) {
            String released = this.redis.opsForValue().get(this.checks + "{" + key + "}:released");
            floors.put(key, released == null ? 0 : Long.parseLong(released));
        }
        LockHandle handle;
        try {
            handle = keys.size() == 1 ? locks.acquire(keys.get(0), options) : locks.acquireAll(keys, options);
        }
        catch (LockTimeoutException ex) {
            count(kind + " timeouts");
            if (waitStart >= 0) {
                violation(kind, "waited 8 s for a lock held by turns for " + WAKE_HOLD_MS + " ms: " + ex.getMessage());
            }
            return;
        }
        long granted = System.currentTimeMillis();
        handle.onLeaseLost(lost -> violation(kind, "lease lost: " + lost.getMessage()));
        List<LockHandle> members = handle instanceof MultiLockHandle multi ? multi.members() : List.of(handle);
        String side = mode == LockMode.READ ? "r" : mode.isSemaphore() ? "p" : "w";
        String other = mode == LockMode.READ ? "w" : mode == LockMode.WRITE ? "r" : "";
        int amount = mode.isSemaphore() ? options.permits() : 1;
        int limit = mode.isSemaphore() ? options.permitLimit() : mode == LockMode.READ ? Integer.MAX_VALUE : 1;
        try {
            if (waitStart >= 0) {
                checkWake(kind, keys.get(0), waitStart, granted);
            }
            for (LockHandle member : members) {
                enter(kind, member, side, other, amount, limit, floors.get(member.key()), mode);
            }
            Thread.sleep(holdMillis);
            for (LockHandle member : members) {
                if (!member.isHeld()) {
                    violation(kind, member.key() + " not held after " + holdMillis + " ms (token "
                            + member.fencingToken() + ")");
                }
                this.redis.opsForHash().increment(this.checks + "{" + member.key() + "}:occupancy", side, -amount);
            }
            if (waitStart >= 0) {
                this.redis.opsForValue().set(this.checks + kind + ":released-by", this.label + " "
                        + System.currentTimeMillis());
            }
        }
        finally {
            handle.release(); // throws on a failed release: a violation of the thread
        }
        for (LockHandle member : members) {
            this.redis.execute(RELEASED, List.of(this.checks + "{" + member.key() + "}:released"),
                    Long.toString(member.fencingToken()));
        }
    }

    private void enter(String kind, LockHandle member, String side, String other, int amount, int limit, long floor,
            LockMode mode) {
        String key = member.key();
        long token = member.fencingToken();
        List<?> counts = this.redis.execute(ENTER, List.of(this.checks + "{" + key + "}:occupancy"), side,
                Integer.toString(amount), other);
        long inside = ((Number) counts.get(0)).longValue();
        long others = ((Number) counts.get(1)).longValue();
        if (inside > limit || others > 0) {
            violation(kind, key + " " + mode + " granted (token " + token + ") with " + inside + " of " + side
                    + " inside (limit " + limit + ")" + (other.isEmpty() ? "" : " and " + others + " of " + other));
        }
        if (token <= floor) {
            violation(kind, key + " token " + token + " not above " + floor + ", released before the call began");
        }
        String exclusive = mode == LockMode.READ || mode.isSemaphore() ? "s" : "x";
        long fence = this.redis.execute(FENCE, List.of(this.checks + "{" + key + "}:fence",
                this.checks + "{" + key + "}:tokens"), Long.toString(token), exclusive);
        if (fence != 0) {
            violation(kind, key + " " + mode + " token " + token + (fence == 3 ? " granted twice"
                    : fence == 1 ? " not above every token granted before" : " not above the last exclusive grant"));
        }
    }

    /**
     * A grant after a wait that the other worker's release ended counts as a cross-version wake-up. Every wait must end
     * within one of the other worker's holds plus {@link #WAKE_BOUND_MS}, whoever released last: a waiter that missed
     * the release message would sleep until the holder's lease ran out (5 s at most, {@link #WAKE_LEASE} here).
     */
    private void checkWake(String kind, String key, long waitStart, long granted) {
        long waited = granted - waitStart;
        this.counts.computeIfAbsent(kind + " longest wait ms", k -> new AtomicLong()).accumulateAndGet(waited,
                Math::max);
        if (waited > WAKE_HOLD_MS + WAKE_BOUND_MS) {
            violation(kind, key + " granted after a wait of " + waited + " ms, while the other worker holds it for "
                    + WAKE_HOLD_MS + " ms at a time (bound " + (WAKE_HOLD_MS + WAKE_BOUND_MS) + " ms: a waiter that"
                    + " misses the release message sleeps until the holder's lease would end, 5 s)");
        }
        String last = this.redis.opsForValue().get(this.checks + kind + ":released-by");
        if (last != null && !last.startsWith(this.label + " ") && Long.parseLong(last.split(" ")[1]) >= waitStart) {
            count(kind + " cross-version wake-ups");
        }
    }

    /** Counts hand-offs and renewals; a failed renewal or release and a lost lease are violations. */
    private void event(LockEvent event) {
        if (event instanceof LockEvent.HandedOff) {
            count("events: hand-offs");
        }
        else if (event instanceof LockEvent.Renewed renewed) {
            count("events: renewals", renewed.count());
        }
        else if (event instanceof LockEvent.RenewalFailed failed) {
            violation("renewal", failed.lock().key() + " renewal failed: " + failed.reason());
        }
        else if (event instanceof LockEvent.LeaseLost lost) {
            violation("lease", lost.lock().key() + " lease lost: " + lost.reason().getMessage());
        }
        else if (event instanceof LockEvent.ReleaseFailed failed) {
            violation("release", failed.lock().key() + " release failed: " + failed.reason());
        }
    }

    private void barrier(String name, int workers) throws InterruptedException {
        String key = this.checks + "barrier:" + name;
        this.redis.opsForValue().increment(key);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Long.parseLong(this.redis.opsForValue().get(key)) < workers) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the other workers did not reach " + name + " within 60 s");
            }
            Thread.sleep(20);
        }
    }

    private long count(String name) {
        return this.counts.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    }

    private long count(String name, long add) {
        return this.counts.computeIfAbsent(name, k -> new AtomicLong()).addAndGet(add);
    }

    private void violation(String kind, String what) {
        String line = "VIOLATION " + this.label + " " + kind + ": " + what;
        this.violations.add(line);
        say(line);
    }

    private boolean report() {
        String[] names = this.counts.keySet().toArray(new String[0]);
        Arrays.sort(names);
        for (String name : names) {
            say("COUNT " + this.label + " " + name + " = " + this.counts.get(name));
        }
        for (String kind : KINDS) {
            int least = kind.equals("quorum") ? 3 : 5; // quorum waiters poll at random: the unluckier side gets fewer
            if (count(kind + " sections", 0) < least) {
                violation(kind, "fewer than " + least + " sections completed: the kind was hardly judged");
            }
            if (!kind.equals("lease") && count(kind + " long holds", 0) < 1) {
                violation(kind, "no hold outlived its lease: renewal was not judged");
            }
        }
        if (count("events: renewals", 0) < 1) {
            violation("renewal", "the watchdog renewed nothing");
        }
        int found = this.violations.size();
        say("SUMMARY " + this.label + (found == 0 ? " ok" : " failed with " + found + " violations"));
        return found == 0;
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
