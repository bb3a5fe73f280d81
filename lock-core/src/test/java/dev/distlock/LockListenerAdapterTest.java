package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

/**
 * The deprecated {@link LockListener} still hears every event it has a method for, through {@link LockEventListener},
 * and quietly skips the kinds it predates.
 */
@SuppressWarnings("removal")
class LockListenerAdapterTest {

    @Test
    void everyOldMethodHearsItsEventAndNewerKindsAreSkipped() {
        LockHandle lock = new ValueHandle();
        LockUnavailableException down = new LockUnavailableException("stock:1", "Redis did not answer");
        LeaseLostException lost = new LeaseLostException("stock:1", "the lease ran out");
        List<String> heard = new ArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void acquired(LockHandle handle, Duration waited) {
                heard.add("acquired " + waited.toMillis());
            }

            @Override
            public void notAcquired(String key, String name, Duration waited) {
                heard.add("notAcquired " + key + " " + name);
            }

            @Override
            public void acquireFailed(String key, String name, Duration waited, LockException reason) {
                heard.add("acquireFailed " + (reason == down));
            }

            @Override
            public void released(LockHandle handle, Duration held) {
                heard.add("released " + held.toMillis());
            }

            @Override
            public void releaseFailed(LockHandle handle, LockException reason) {
                heard.add("releaseFailed " + (reason == lost));
            }

            @Override
            public void renewed(int count) {
                heard.add("renewed " + count);
            }

            @Override
            public void renewalFailed(LockHandle handle, Exception reason) {
                heard.add("renewalFailed " + (reason == down));
            }

            @Override
            public void leaseLost(LockHandle handle, LeaseLostException reason) {
                heard.add("leaseLost " + (handle == lock));
            }
        };
        LockEventListener events = listener;
        events.onEvent(new LockEvent.Acquiring(1, "stock:1", "stock", LockMode.EXCLUSIVE));
        events.onEvent(new LockEvent.Acquired(1, lock, Duration.ofMillis(4)));
        events.onEvent(new LockEvent.NotAcquired(2, "stock:1", "stock", Duration.ZERO));
        events.onEvent(new LockEvent.AcquireFailed(3, "stock:1", "stock", Duration.ZERO, down));
        events.onEvent(new LockEvent.HandedOff(lock, lock));
        events.onEvent(new LockEvent.Released(lock, Duration.ofMillis(9)));
        events.onEvent(new LockEvent.ReleaseFailed(lock, lost));
        events.onEvent(new LockEvent.Renewed(12));
        events.onEvent(new LockEvent.RenewalFailed(lock, down));
        events.onEvent(new LockEvent.LeaseLost(lock, lost));

        assertThat(heard).containsExactly("acquired 4", "notAcquired stock:1 stock", "acquireFailed true",
                "released 9", "releaseFailed true", "renewed 12", "renewalFailed true", "leaseLost true");
        assertThat(LockEvent.class.getPermittedSubclasses()).as("kinds this test sends").hasSize(10);
    }

    /** A handle as a value in events; nothing here reaches Redis. */
    private static final class ValueHandle implements LockHandle {

        @Override
        public String key() {
            return "stock:1";
        }

        @Override
        public String ownerToken() {
            return "owner";
        }

        @Override
        public long fencingToken() {
            return 1;
        }

        @Override
        public Instant leaseDeadline() {
            return Instant.EPOCH;
        }

        @Override
        public boolean isHeld() {
            return true;
        }

        @Override
        public void onLeaseLost(Consumer<LeaseLostException> callback) {
        }

        @Override
        public void release() {
        }

        @Override
        public void releaseAfter(Duration delay) {
        }
    }
}
