package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** What a {@code @DistributedLock} call does when another owner holds its lock: throw, skip, or call a handler. */
@RedisTest
class NotAcquiredTest {

    @Test
    void throwPropagatesTheTimeoutAndDoesNotInvokeTheMethod(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            try (LockHandle other = holdElsewhere(context, "report")) {
                assertThatThrownBy(reports::throwing).isInstanceOfSatisfying(LockTimeoutException.class,
                        timeout -> assertThat(timeout.key()).isEqualTo("report"))
                    .hasMessageMatching("Lock 'report' is held by another owner; not acquired within \\d+ ms");
            }
            assertThat(reports.invocations()).isEqualTo(0);
            assertThat(reports.throwing()).isEqualTo("ran");
        });
    }

    @Test
    void skipReturnsNullOrAnEmptyOptionalOrNothingWithoutInvokingTheMethod(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            try (LockHandle other = holdElsewhere(context, "report")) {
                assertThat(reports.skippedToNull()).isNull();
                assertThat(reports.skippedToEmpty()).isEmpty();
                assertThat(reports.skippedToEmptyInt()).isEmpty();
                reports.skippedVoid();
            }
            assertThat(reports.invocations()).isEqualTo(0);
            assertThat(reports.skippedToEmpty()).contains("ran");
            assertThat(reports.invocations()).isEqualTo(1);
        });
    }

    @Test
    void theDefaultFollowsDistlockOnNotAcquired(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).run(context -> {
            try (LockHandle other = holdElsewhere(context, "report")) {
                assertThatThrownBy(context.getBean(Reports.class)::defaulted)
                    .isInstanceOf(LockTimeoutException.class);
            }
        });
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class)
            .withPropertyValues("distlock.on-not-acquired=skip")
            .run(context -> {
                try (LockHandle other = holdElsewhere(context, "report")) {
                    assertThat(context.getBean(Reports.class).defaulted()).isNull();
                }
                assertThat(context.getBean(Reports.class).invocations()).isEqualTo(0);
            });
    }

    @Test
    void callHandlerReturnsWhatTheHandlerReturnsAndTellsItWhy(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).run(context -> {
            Reports reports = context.getBean(Reports.class);
            try (LockHandle other = holdElsewhere(context, "report:monday")) {
                assertThat(reports.handled("monday")).isEqualTo("busy report:monday");
            }
            assertThat(reports.invocations()).isEqualTo(0);
            LockNotAcquiredEvent event = context.getBean(RecordingHandler.class).last.get();
            assertThat(event.method().getName()).isEqualTo("handled");
            assertThat(event.arguments()).containsExactly("monday");
            assertThat(event.key()).isEqualTo("report:monday");
            assertThat(event.exception().key()).isEqualTo("report:monday");
            assertThat(reports.handled("monday")).isEqualTo("ran");
        });
    }

    @Test
    void aHandlerMayThrowInstead(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).run(context -> {
            try (LockHandle other = holdElsewhere(context, "report")) {
                assertThatThrownBy(context.getBean(Reports.class)::refused)
                    .isInstanceOf(IllegalStateException.class).hasMessage("refused report");
            }
        });
    }

    @Test
    void skipOnAPrimitiveReturnTypeFailsStartupNamingTheMethod(RedisNode redis) {
        LockContexts.runner(redis).withBean(PrimitiveSkip.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(
                    "Invalid @DistributedLock on NotAcquiredTest.PrimitiveSkip.count(): onNotAcquired is SKIP")
                .hasMessageContaining("returns int");
        });
        LockContexts.runner(redis).withBean(PrimitiveDefault.class)
            .withPropertyValues("distlock.on-not-acquired=skip")
            .run(context -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("Invalid @DistributedLock on NotAcquiredTest.PrimitiveDefault.enabled(): "
                        + "distlock.on-not-acquired is SKIP, which this annotation uses as it leaves onNotAcquired "
                        + "unset")
                .hasMessageContaining("returns boolean")
                .hasMessageNotContaining("onNotAcquired is SKIP"));
        LockContexts.runner(redis).withBean(PrimitiveDefault.class)
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void handlerDeclarationsAreCheckedAtStartup(RedisNode redis) {
        LockContexts.runner(redis).withBean(UnknownHandler.class).run(context -> assertThat(context.getStartupFailure())
            .rootCause()
            .hasMessageContaining("Invalid @DistributedLock on NotAcquiredTest.UnknownHandler.run()")
            .hasMessageContaining("notAcquiredHandler 'noSuchHandler' is not the name of a LockNotAcquiredHandler "
                    + "bean"));
        LockContexts.runner(redis).withBean(MissingHandlerName.class).run(context -> assertThat(
                context.getStartupFailure()).rootCause().hasMessageContaining("CALL_HANDLER needs notAcquiredHandler"));
        LockContexts.runner(redis).withUserConfiguration(ReportsConfiguration.class).withBean(HandlerWithoutMode.class)
            .run(context -> assertThat(context.getStartupFailure()).rootCause()
                .hasMessageContaining("notAcquiredHandler 'busyHandler' is only used with onNotAcquired = "
                        + "CALL_HANDLER"));
    }

    private static LockHandle holdElsewhere(ApplicationContext context, String key) {
        return context.getBean(LockService.class).acquire(key, LockOptions.defaults().withOwner(new Object()));
    }

    @Configuration(proxyBeanMethods = false)
    static class ReportsConfiguration {

        @Bean
        Reports reports() {
            return new Reports();
        }

        @Bean
        RecordingHandler busyHandler() {
            return new RecordingHandler();
        }

        @Bean
        LockNotAcquiredHandler refusingHandler() {
            return event -> {
                throw new IllegalStateException("refused " + event.key());
            };
        }
    }

    static class RecordingHandler implements LockNotAcquiredHandler {

        final AtomicReference<LockNotAcquiredEvent> last = new AtomicReference<>();

        @Override
        public Object handle(LockNotAcquiredEvent event) {
            this.last.set(event);
            return "busy " + event.key();
        }
    }

    static class Reports {

        private final AtomicInteger invocations = new AtomicInteger();

        /** A method, not the field: the field of a CGLIB proxy is not the target's. */
        public int invocations() {
            return this.invocations.get();
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.THROW)
        public String throwing() {
            this.invocations.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public String skippedToNull() {
            this.invocations.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public Optional<String> skippedToEmpty() {
            this.invocations.incrementAndGet();
            return Optional.of("ran");
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public OptionalInt skippedToEmptyInt() {
            this.invocations.incrementAndGet();
            return OptionalInt.of(1);
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.SKIP)
        public void skippedVoid() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "'report'", waitTime = "0s")
        public String defaulted() {
            this.invocations.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'report:' + #day", waitTime = "0", onNotAcquired = OnNotAcquired.CALL_HANDLER,
                notAcquiredHandler = "busyHandler")
        public String handled(String day) {
            this.invocations.incrementAndGet();
            return "ran";
        }

        @DistributedLock(key = "'report'", waitTime = "0", onNotAcquired = OnNotAcquired.CALL_HANDLER,
                notAcquiredHandler = "refusingHandler")
        public List<String> refused() {
            this.invocations.incrementAndGet();
            return List.of("ran");
        }
    }

    static class PrimitiveSkip {

        @DistributedLock(key = "'count'", onNotAcquired = OnNotAcquired.SKIP)
        public int count() {
            return 1;
        }
    }

    static class PrimitiveDefault {

        @DistributedLock(key = "'enabled'")
        public boolean enabled() {
            return true;
        }
    }

    static class UnknownHandler {

        @DistributedLock(key = "'run'", onNotAcquired = OnNotAcquired.CALL_HANDLER,
                notAcquiredHandler = "noSuchHandler")
        public void run() {
        }
    }

    static class MissingHandlerName {

        @DistributedLock(key = "'run'", onNotAcquired = OnNotAcquired.CALL_HANDLER)
        public void run() {
        }
    }

    static class HandlerWithoutMode {

        @DistributedLock(key = "'run'", notAcquiredHandler = "busyHandler")
        public void run() {
        }
    }
}
