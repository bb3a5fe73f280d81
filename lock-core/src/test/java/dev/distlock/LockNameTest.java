package dev.distlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Lock names: derived from the key's kind, never from its id, or given explicitly. */
class LockNameTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            stock:42                 | stock
            stock:42:reserve         | stock
            order.items:7            | order.items
            wiki_page-v:home         | wiki_page-v
            nightly-report           | unnamed
            alice@example.com        | unnamed
            user-42:cart             | unnamed
            12345:cart               | unnamed
            alice@example.com:cart   | unnamed
            :stock                   | unnamed
            '  stock:1'              | unnamed
            stöck:1                  | unnamed
            stock1:1                 | unnamed
            """)
    void theDerivedNameIsTheKeysKindOrUnnamed(String key, String name) {
        assertThat(LockOptions.defaults().nameFor(key)).isEqualTo(name);
        assertThat(handle(key).name()).isEqualTo(name);
    }

    @Test
    void aKindLongerThan64CharactersIsUnnamed() {
        assertThat(LockOptions.defaults().nameFor("k".repeat(64) + ":1")).isEqualTo("k".repeat(64));
        assertThat(LockOptions.defaults().nameFor("k".repeat(65) + ":1")).isEqualTo("unnamed");
    }

    @Test
    void anExplicitNameWinsAndTravelsWithTheOtherOptions() {
        LockOptions options = LockOptions.defaults()
            .withName("OrderService.reserve")
            .withWaitTime(Duration.ofSeconds(1))
            .withMode(LockMode.FAIR)
            .withOwner("task")
            .withLeaseTime(Duration.ofSeconds(5))
            .withWatchdog();
        assertThat(options.name()).isEqualTo("OrderService.reserve");
        assertThat(options.nameFor("user-42:cart")).isEqualTo("OrderService.reserve");
        assertThat(options).isEqualTo(options.withName("OrderService.reserve"))
            .isNotEqualTo(options.withName("other"));
        assertThat(options.toString()).contains("name=OrderService.reserve");
        assertThat(LockOptions.defaults().name()).isNull();
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "  ", "a\nb" })
    void badNamesAreRejected(String name) {
        assertThatThrownBy(() -> LockOptions.defaults().withName(name))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("name must not");
    }

    @Test
    void nullAndOverlongNamesAreRejected() {
        assertThatThrownBy(() -> LockOptions.defaults().withName(null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("name must not be null");
        assertThat(LockOptions.defaults().withName("n".repeat(200)).name()).hasSize(200);
        assertThatThrownBy(() -> LockOptions.defaults().withName("n".repeat(201)))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("name must be at most 200 characters, but had 201");
        assertThatThrownBy(() -> LockOptions.defaults().nameFor(null))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("key must not be null");
    }

    /** A handle of another implementation, which knows nothing of names: the default derives it. */
    private static LockHandle handle(String key) {
        return new LockHandle() {

            @Override
            public String key() {
                return key;
            }

            @Override
            public String ownerToken() {
                return "token";
            }

            @Override
            public long fencingToken() {
                return 1;
            }

            @Override
            public Instant leaseDeadline() {
                return Instant.now();
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
        };
    }
}
