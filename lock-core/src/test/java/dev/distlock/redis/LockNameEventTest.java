package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** Every listener event names its lock, whatever its kind. */
@RedisTest
class LockNameEventTest {

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
    void listenerEventsCarryTheLocksName() {
        Recorder recorder = new Recorder();
        RedisLockService locks = this.clients.service(quickTemplate(), b -> b.listener(recorder));
        RedisLockService other = this.clients.service();
        LockHandle held = other.acquire("stock:1");

        assertThat(locks.tryAcquire("stock:1")).isEmpty();
        assertThatThrownBy(() -> locks.acquire("stock:1",
                LockOptions.defaults().withName("Sale.buy").withWaitTime(Duration.ofMillis(20))))
            .isInstanceOf(LockTimeoutException.class);
        held.release();
        locks.acquire("user-42:cart").release();
        MultiLockHandle set = locks.acquireAll(List.of("stock:2", "account:9", "stock:3"), LockOptions.defaults());
        assertThat(set.name()).isEqualTo("account+stock");
        set.release();
        MultiLockHandle named = locks.acquireAll(List.of("stock:2", "account:9"),
                LockOptions.defaults().withName("Transfer.run"));
        assertThat(named.name()).isEqualTo("Transfer.run");
        assertThat(named.members()).extracting(LockHandle::name).containsOnly("Transfer.run");
        named.release();

        assertThat(recorder.events).containsExactly("notAcquired stock:1 stock", "notAcquired stock:1 Sale.buy",
                "acquired user-42:cart unnamed", "released user-42:cart unnamed", "acquired account:9 account",
                "acquired stock:2 stock", "acquired stock:3 stock", "released stock:3 stock",
                "released stock:2 stock", "released account:9 account", "acquired account:9 Transfer.run",
                "acquired stock:2 Transfer.run", "released stock:2 Transfer.run",
                "released account:9 Transfer.run");

        this.redis.stop();
        assertThatThrownBy(() -> locks.acquire("stock:1", LockOptions.defaults().withWaitTime(Duration.ZERO)))
            .isInstanceOf(LockUnavailableException.class);
        assertThat(recorder.events).last().isEqualTo("failed stock:1 stock LockUnavailableException");
    }

    /** A client whose commands time out after 200 ms, so that a stopped or paused Redis fails calls quickly. */
    private StringRedisTemplate quickTemplate() {
        return this.clients.template(this.redis.port(), Duration.ofMillis(200));
    }

    /** Records events with the name each carries. */
    private static final class Recorder implements LockEventListener {

        final List<String> events = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(LockEvent event) {
            if (event instanceof LockEvent.Acquired acquired) {
                this.events.add("acquired " + acquired.lock().key() + " " + acquired.lock().name());
            }
            else if (event instanceof LockEvent.NotAcquired refused) {
                this.events.add("notAcquired " + refused.key() + " " + refused.name());
            }
            else if (event instanceof LockEvent.AcquireFailed failed) {
                this.events.add("failed " + failed.key() + " " + failed.name() + " "
                        + failed.reason().getClass().getSimpleName());
            }
            else if (event instanceof LockEvent.Released released) {
                this.events.add("released " + released.lock().key() + " " + released.lock().name());
            }
            else if (event instanceof LockEvent.LeaseLost lost) {
                this.events.add("lost " + lost.lock().key() + " " + lost.lock().name());
            }
        }
    }
}
