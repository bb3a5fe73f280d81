package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.test.Await;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;
import dev.distlock.test.TcpProxy;

/** Releases that meet an interrupt, a lost reply, a stalled Redis or a renewal in flight. */
@RedisTest
class ReleaseUnderFaultsTest {

    private RedisNode redis;

    private RedisClients clients;

    @BeforeEach
    void setUp(RedisNode redis) {
        this.redis = redis;
        this.clients = new RedisClients(redis);
    }

    @AfterEach
    void tearDown() throws Exception {
        this.redis.resume();
        this.clients.close();
    }

    @Test
    void aReleaseFromAnInterruptedThreadFreesTheLockAndKeepsTheFlag() {
        RedisLockService locks = this.clients.service();
        LockHandle lock = locks.acquire("job:1");
        LockHandle later = locks.acquire("job:2");
        Thread.currentThread().interrupt();
        try {
            lock.release();
            later.releaseAfter(Duration.ofSeconds(10));
            assertThat(Thread.currentThread().isInterrupted()).as("the flag stays set").isTrue();
        }
        finally {
            Thread.interrupted();
        }
        assertThat(this.redis.lockField("distlock:{job:1}:lock", "owner")).isNull();
        // kept for the delay, not renewed for the 30 s watchdog lease (a wide delay for a loaded machine)
        String[] now = this.redis.call("TIME").split("\n");
        long nowMillis = Long.parseLong(now[0]) * 1000 + Long.parseLong(now[1]) / 1000;
        assertThat(this.redis.lockField("distlock:{job:2}:lock", "owner")).isEqualTo("(released)");
        assertThat(Long.parseLong(this.redis.lockField("distlock:{job:2}:lock", "until")) - nowMillis)
            .isBetween(1L, 10_001L); // + 1: the delay's end rounds Redis's clock up to the ms, this read down
        assertThat(locks.renewingCount()).isZero();
    }

    @Test
    void aRetriedReleaseAfterAnotherOwnerTookAndFreedTheLockIsNotReportedLost() throws Exception {
        try (TcpProxy proxy = TcpProxy.start(this.redis.port())) {
            RedisLockService holder = this.clients.service(this.clients.template(proxy.port(), Duration.ofSeconds(5)),
                    b -> b);
            RedisLockService other = this.clients.service();
            holder.acquire("warm-up").release(); // Redis knows the scripts: no NOSCRIPT reply to lose
            LockHandle lock = holder.acquire("sku:9");

            proxy.blackholeReplies(true); // the release runs in Redis; its reply never comes back
            CompletableFuture<Void> release = CompletableFuture.runAsync(lock::release);
            Await.until(Duration.ofSeconds(5), () -> this.redis.lockField("distlock:{sku:9}:lock", "owner") == null,
                    "the release ran in Redis");
            other.acquire("sku:9").release(); // a hot key: another owner takes and frees it during the retry gap
            proxy.blackholeReplies(false);
            proxy.dropConnections(); // the client reconnects and sends the release again

            release.get(20, TimeUnit.SECONDS); // no LeaseLostException: this release did happen
            assertThat(lock.isHeld()).isFalse();
        }
    }

    @Test
    void aSameServiceWaiterWakesWhenTheFreeingReleasesReplyWasLost() throws Exception {
        RedisLockService locks = this.clients.service(this.clients.template(this.redis.port(), Duration.ofMillis(500)),
                b -> b);
        locks.acquire("warm-up").release(); // Redis knows the scripts: the retry below runs no EVAL fallback
        LockHandle lock = locks.acquire("cart:7");
        CompletableFuture<LockHandle> waiter = CompletableFuture.supplyAsync(
                () -> locks.acquire("cart:7", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))));
        Await.until(Duration.ofSeconds(5),
                () -> this.redis.call("PUBSUB", "NUMSUB", "distlock:{cart:7}:released").endsWith("\n1"),
                "the waiter subscribed and sleeps");
        Thread.sleep(300); // let its first attempt's refusal come back before the pause

        this.redis.pause();
        CompletableFuture<Void> release = CompletableFuture.runAsync(lock::release);
        // the first try times out after 500 ms; the retry goes out 50 ms later and waits behind it
        Thread.sleep(800);
        this.redis.resume();
        release.get(10, TimeUnit.SECONDS); // the first try freed the lock; the retry answered "already released"
        long releasedNanos = System.nanoTime();

        LockHandle acquired = waiter.get(10, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - releasedNanos))
            .as("woken by the release, not by its 5 s re-check").isLessThan(Duration.ofMillis(2500));
        acquired.release();
    }

    @Test
    void releaseAfterIsNotExtendedByARenewalInFlight() {
        StringRedisTemplate template = this.clients.template();
        RedisLockService locks = this.clients.service(template, b -> b.watchdogLease(Duration.ofSeconds(20))
            .renewalInterval(Duration.ofMillis(1)));
        List<LockHandle> held = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            held.add(locks.acquire("form:" + i));
        }
        for (LockHandle lock : held) {
            lock.releaseAfter(Duration.ofMillis(300));
        }
        RedisLockService other = this.clients.service();
        for (int i = 0; i < 300; i++) {
            String key = "form:" + i;
            Await.until(Duration.ofSeconds(8), () -> {
                var taken = other.tryAcquire(key);
                taken.ifPresent(LockHandle::release);
                return taken.isPresent();
            }, "every lock is free when its delay ends, none is kept for the watchdog lease");
        }
    }
}
