package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.distlock.LockHandle;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A call from a bean to its own annotated method through {@code this} bypasses the proxy and takes no lock; startup
 * warns about it once per class.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class SelfInvocationWarningTest {

    @Test
    void startupWarnsOnceAboutCallsToOwnLockedMethods(CapturedOutput output, RedisNode redis) {
        LockContexts.runner(redis).withBean(SelfCalling.class).withBean(Clean.class).run(context -> {
            assertThat(context).hasNotFailed();
            SelfCalling bean = context.getBean(SelfCalling.class);
            assertThat(bean.reserveAll(List.of("1"))).as("the self-invocation takes no lock").isEmpty();
            assertThat(bean.reserve("1")).as("the call through the proxy does").isPresent();
        });
        String warning = "@DistributedLock is probably bypassed by self-invocation in " + SelfCalling.class.getName()
                + ": reserveAll(List) calls reserve(String), lambda$reserveLater$0(String) calls reserve(String)";
        assertThat(output).containsOnlyOnce(warning)
            .contains("A call on 'this' does not go through the Spring proxy and runs without the lock")
            .doesNotContain("self-invocation in " + Clean.class.getName());
    }

    @Test
    void superCallsAndRecursionAreNotSelfInvocations() throws NoSuchMethodException {
        Method reserve = Subclass.class.getMethod("reserve", String.class);
        Method countdown = Subclass.class.getMethod("countdown", int.class);
        assertThat(SelfInvocations.find(Subclass.class, List.of(reserve, countdown))).isEmpty();
    }

    static class SelfCalling {

        @DistributedLock(key = "'stock:' + #sku")
        public Optional<LockHandle> reserve(String sku) {
            return CurrentLock.handle();
        }

        public Optional<LockHandle> reserveAll(List<String> skus) {
            Optional<LockHandle> last = Optional.empty();
            for (String sku : skus) {
                last = reserve(sku);
            }
            return last;
        }

        public Runnable reserveLater(String sku) {
            return () -> reserve(sku);
        }
    }

    static class Clean {

        @DistributedLock(key = "'clean'")
        public void run() {
        }
    }

    static class Base {

        @DistributedLock(key = "'stock:' + #sku")
        public Optional<LockHandle> reserve(String sku) {
            return CurrentLock.handle();
        }
    }

    static class Subclass extends Base {

        @Override
        @DistributedLock(key = "'stock:' + #sku")
        public Optional<LockHandle> reserve(String sku) {
            return super.reserve(sku);
        }

        @DistributedLock(key = "'countdown'")
        public int countdown(int from) {
            return (from == 0) ? 0 : countdown(from - 1);
        }
    }
}
