package dev.distlock.redis.quorum;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.RedisClients;
import dev.distlock.redis.RedisLockService;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisServers;
import dev.distlock.test.RedisTest;

/** A listener hears the same events, with the same lock names, from a quorum service as from a single-master one. */
@RedisTest
class QuorumListenerTest {

    private List<RedisNode> masters;

    private QuorumClients quorumClients;

    private RedisClients singleClients;

    @BeforeEach
    void setUp(RedisServers servers) {
        this.masters = servers.startIndependent(3);
        this.quorumClients = new QuorumClients(this.masters);
        this.singleClients = new RedisClients(this.masters.get(0));
    }

    @AfterEach
    void tearDown() throws Exception {
        this.quorumClients.close();
        this.singleClients.close();
    }

    @Test
    void quorumAndSingleMasterServicesReportTheSameEventsAndNames() {
        Recorder quorum = new Recorder();
        QuorumLockService quorumLocks = this.quorumClients.service(b -> b.listener(quorum));
        QuorumLockService quorumOther = this.quorumClients.service();
        runScenario(quorumLocks, quorumOther, () -> {
            this.masters.get(1).stop();
            this.masters.get(2).stop();
        });

        this.masters.get(0).flushAll(); // the single-master run starts on an empty master
        Recorder single = new Recorder();
        RedisLockService singleLocks = this.singleClients.service(
                this.singleClients.template(this.masters.get(0).port(), Duration.ofMillis(200)),
                b -> b.listener(single));
        RedisLockService singleOther = this.singleClients.service();
        runScenario(singleLocks, singleOther, () -> this.masters.get(0).stop());

        assertThat(single.events).containsExactly("notAcquired stock:1 stock", "notAcquired stock:1 Sale.buy",
                "acquired cart:7 checkout", "released cart:7 checkout",
                "failed cart:7 checkout LockUnavailableException");
        assertThat(quorum.events).containsExactlyElementsOf(single.events);
    }

    /** The same calls on either kind of service. */
    private static void runScenario(LockService locks, LockService other, Runnable breakRedis) {
        LockHandle held = other.acquire("stock:1");
        assertThat(locks.tryAcquire("stock:1")).isEmpty();
        assertThatThrownBy(() -> locks.acquire("stock:1",
                LockOptions.defaults().withName("Sale.buy").withWaitTime(Duration.ofMillis(20))))
            .isInstanceOf(LockTimeoutException.class);
        held.release();
        LockOptions checkout = LockOptions.defaults().withName("checkout");
        LockHandle lock = locks.acquire("cart:7", checkout);
        assertThat(lock.name()).isEqualTo("checkout");
        lock.release();
        breakRedis.run();
        assertThatThrownBy(() -> locks.tryAcquire("cart:7", checkout))
            .isInstanceOf(LockUnavailableException.class);
    }

    /** Records events with the name each carries; only the overloads with names. */
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
        }
    }
}
