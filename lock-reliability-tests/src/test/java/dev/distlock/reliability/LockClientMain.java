package dev.distlock.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.redis.RedisLockService;


/**
 * A lock client in a JVM of its own, started by the reliability tests. It takes the lock (watchdog lease), reports
 * {@code ACQUIRED <fencing token>} on stdout, works until the file {@code <go file>} exists (at most 60 s), writes to
 * the fenced resource, records its section in the history file, and releases. It reports {@code LEASE_LOST} when told
 * its lease was lost, {@code WRITE accepted|rejected}, and {@code RELEASED} or {@code RELEASE_FAILED <exception>}.
 *
 * <p>Arguments: lock port, resource port, key, watchdog lease ms, history file, go file, client name.
 */
public final class LockClientMain {

    private LockClientMain() {
    }

    public static void main(String[] args) throws Exception {
        int lockPort = Integer.parseInt(args[0]);
        int resourcePort = Integer.parseInt(args[1]);
        String key = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));
        Path history = Path.of(args[4]);
        Path go = Path.of(args[5]);
        String client = args[6];
        try (Clients clients = new Clients()) {
            RedisLockService locks = clients.service(lockPort, Duration.ofSeconds(2), b -> b.watchdogLease(lease));
            FencedResource resource = new FencedResource(clients.template(resourcePort, Duration.ofSeconds(2)), key);
            LockHandle lock = locks.acquire(key, LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)));
            long start = System.nanoTime();
            lock.onLeaseLost(reason -> say("LEASE_LOST " + reason.getMessage()));
            say("ACQUIRED " + lock.fencingToken());
            long giveUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!Files.exists(go) && System.nanoTime() < giveUp) {
                Thread.sleep(10);
            }
            say("WRITE " + (resource.write(lock.fencingToken()) ? "accepted" : "rejected"));
            Section section = new Section(client, lock.ownerToken(), lock.fencingToken(), start, System.nanoTime(),
                    lock.isHeld());
            Files.writeString(history, section.toLine() + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            try {
                lock.release();
                say("RELEASED");
            }
            catch (LockException ex) {
                say("RELEASE_FAILED " + ex.getClass().getSimpleName());
            }
        }
        catch (IOException | RuntimeException ex) {
            say("ERROR " + ex);
            System.exit(2);
        }
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
