package dev.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Constructor;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import dev.distlock.LeaseLostException;
import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockUnavailableException;

/**
 * The composite cannot drop an event: one of every kind {@link LockEvent} permits (found by reflection, so a kind
 * added later is covered without touching this test) reaches every delegate, also past a delegate that throws.
 */
class CompositeLockEventListenerTest {

    @Test
    void everyKindOfEventReachesEveryListenerPastOneThatThrows() {
        List<LockEvent> first = new CopyOnWriteArrayList<>();
        List<LockEvent> second = new CopyOnWriteArrayList<>();
        LockEventListener broken = event -> {
            throw new IllegalStateException("a broken listener");
        };
        LockEventListener composite = CompositeLockEventListener.of(List.of(first::add, broken, second::add));

        List<LockEvent> everyKind = oneOfEveryKind();
        everyKind.forEach(composite::onEvent);

        assertThat(everyKind).extracting(Object::getClass)
            .containsExactlyInAnyOrder(LockEvent.class.getPermittedSubclasses());
        assertThat(everyKind).hasSizeGreaterThanOrEqualTo(10);
        assertThat(first).containsExactlyElementsOf(everyKind);
        assertThat(second).containsExactlyElementsOf(everyKind);
    }

    @Test
    void aSingleListenerIsUsedAsItIs() {
        LockEventListener only = event -> {
        };
        assertThat(CompositeLockEventListener.of(List.of(only))).isSameAs(only);
    }

    /** One event of each permitted record, its components filled by type. */
    static List<LockEvent> oneOfEveryKind() {
        LockHandle handle = new NamedHandle();
        Map<Class<?>, Object> values = Map.of(long.class, 7L, int.class, 3, String.class, "stock:1", LockMode.class,
                LockMode.EXCLUSIVE, Duration.class, Duration.ofMillis(5), LockHandle.class, handle,
                LockException.class, new LockUnavailableException("stock:1", "Redis did not answer"),
                LeaseLostException.class, new LeaseLostException("stock:1", "the lease ran out"), Exception.class,
                new IllegalStateException("Redis did not answer"));
        List<LockEvent> events = new ArrayList<>();
        for (Class<?> kind : LockEvent.class.getPermittedSubclasses()) {
            RecordComponent[] components = kind.getRecordComponents();
            assertThat(components).as("%s is a record", kind).isNotNull();
            Object[] arguments = Arrays.stream(components)
                .map(component -> values.get(component.getType()))
                .toArray();
            assertThat(arguments).as("a value for every component type of %s", kind).doesNotContainNull();
            try {
                Constructor<?> constructor = kind.getDeclaredConstructor(
                        Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
                events.add((LockEvent) constructor.newInstance(arguments));
            }
            catch (ReflectiveOperationException ex) {
                throw new AssertionError(ex);
            }
        }
        return events;
    }

    /** A handle value for events; nothing here reaches Redis. */
    private static final class NamedHandle implements LockHandle {

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
            return false;
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
