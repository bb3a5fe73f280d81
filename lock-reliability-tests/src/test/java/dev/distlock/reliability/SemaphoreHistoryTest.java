package dev.distlock.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

import dev.distlock.reliability.SemaphoreHistory.Grant;
import dev.distlock.reliability.SemaphoreHistory.Span;

/** The semaphore checker itself: histories that must pass and histories that must fail. */
class SemaphoreHistoryTest {

    @Test
    void holdersUpToTheLimitPass() {
        List<Span> spans = List.of(new Span("a", 1, 1, 0, 100), new Span("b", 2, 2, 10, 50),
                new Span("c", 3, 2, 50, 90)); // b hands its two permits to c at 50
        assertThat(SemaphoreHistory.overLimit(spans, 3)).isEmpty();
        assertThat(SemaphoreHistory.mostAtOnce(spans)).isEqualTo(3);
    }

    @Test
    void permitsOverTheLimitFailCountingEachHoldersPermits() {
        List<Span> spans = List.of(new Span("a", 1, 1, 0, 100), new Span("b", 2, 2, 10, 50),
                new Span("c", 3, 1, 49, 90));
        assertThat(SemaphoreHistory.overLimit(spans, 3)).singleElement().asString()
            .startsWith("4 permits held at once (limit 3)").contains("c (1 permit, token 3, 49 ns to 90 ns)");
        assertThat(SemaphoreHistory.firstOverLimitNanos(spans, 3)).isEqualTo(49);
        assertThat(SemaphoreHistory.firstOverLimitNanos(spans, 4)).isEqualTo(-1);
    }

    @Test
    void anOverlapHiddenBehindALongHolderFails() {
        List<Span> spans = List.of(new Span("a", 1, 1, 0, 1000), new Span("b", 2, 1, 10, 20),
                new Span("c", 3, 1, 500, 600));
        assertThat(SemaphoreHistory.overLimit(spans, 1)).hasSize(1);
    }

    @Test
    void tokensRisingWithTheGrantsPassAndConcurrentGrantsMayComeInEitherOrder() {
        List<Grant> grants = List.of(new Grant("a", 5, 0, 10), new Grant("b", 4, 5, 12), new Grant("c", 6, 20, 30));
        assertThat(SemaphoreHistory.tokenOrder(grants)).isEmpty();
    }

    @Test
    void aTokenNotAboveOneGrantedBeforeTheCallFails() {
        List<Grant> grants = List.of(new Grant("a", 5, 0, 10), new Grant("b", 5, 20, 30), new Grant("c", 3, 40, 50));
        assertThat(SemaphoreHistory.tokenOrder(grants)).hasSize(3).anyMatch(text -> text.contains("granted twice"))
            .anyMatch(text -> text.startsWith("token 3 of c not above token 5"));
    }
}
