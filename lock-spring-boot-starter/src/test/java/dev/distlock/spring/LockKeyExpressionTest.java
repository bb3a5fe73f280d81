package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * Every SpEL form a key may take, and what happens when a key is wrong: at startup for what can be checked then, at
 * the call (with the method not invoked and nothing written to Redis) for what depends on the arguments.
 */
@RedisTest
class LockKeyExpressionTest {

    @Test
    void everyKeyFormEvaluatesToTheExpectedLockKey(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(KeysConfiguration.class).run(context -> {
            Keys keys = context.getBean(Keys.class);
            assertThat(keys.byName("42")).isEqualTo("stock:42");
            assertThat(keys.byP0("42")).isEqualTo("p0:42");
            assertThat(keys.byA0("42")).isEqualTo("a0:42");
            assertThat(keys.byProperty(new Order(7L, "alice"))).isEqualTo("order:7");
            assertThat(keys.byRecordComponent(new Customer("bob"))).isEqualTo("customer:bob");
            assertThat(keys.byBean("42")).isEqualTo("tenant-a:stock:42");
            assertThat(keys.literal()).isEqualTo("nightly-report");
            assertThat(keys.byRootMethodName()).isEqualTo("byRootMethodName");
            assertThat(keys.byNumber(5)).isEqualTo("5");
        });
    }

    @ParameterizedTest
    @ValueSource(strings = { "unknownProperty", "nullKey", "blankKey", "identityKey", "bracedKey", "unquotedLiteral" })
    void aBadKeyAtCallTimeThrowsNamingTheMethodAndTakesNoLock(String method, RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(KeysConfiguration.class).run(context -> {
            BadKeys bad = context.getBean(BadKeys.class);
            assertThatThrownBy(() -> BadKeys.class.getMethod(method).invoke(bad)).cause()
                .isInstanceOfSatisfying(LockKeyException.class, ex -> {
                    assertThat(ex.method().getName()).isEqualTo(method);
                    assertThat(ex).hasMessageContaining("@DistributedLock key of LockKeyExpressionTest.BadKeys."
                            + method + "()").hasMessageContaining("(key = \"" + ex.expression() + "\")")
                        .hasMessageContaining("the method was not invoked");
                });
            assertThat(bad.invocations()).isZero();
            assertThat(redis.call("DBSIZE")).isEqualTo("0");
        });
    }

    @Test
    void theCallTimeMessagesSayWhatWentWrong(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(KeysConfiguration.class).run(context -> {
            BadKeys bad = context.getBean(BadKeys.class);
            assertThatThrownBy(bad::unknownProperty).hasMessageContaining("could not be evaluated")
                .hasMessageContaining("missing");
            assertThatThrownBy(bad::nullKey).hasMessageContaining("evaluated to null");
            assertThatThrownBy(bad::blankKey).hasMessageContaining("evaluated to a blank text '  '");
            assertThatThrownBy(bad::identityKey).hasMessageContaining("has no toString() of its own");
            assertThatThrownBy(bad::bracedKey).hasMessageContaining("evaluated to 'a{b}', which is not a valid lock "
                    + "key: key must not contain braces");
            assertThatThrownBy(bad::unquotedLiteral)
                .hasMessageContaining("a literal key must be quoted, e.g. key = \"'nightly-report'\"");
        });
    }

    @Test
    void aSyntaxErrorFailsStartupNamingTheMethodAndTheExpression(RedisNode redis) {
        LockContexts.runner(redis).withBean(SyntaxError.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining(
                    "Invalid @DistributedLock on LockKeyExpressionTest.SyntaxError.reserve(String): key \"'stock:' +"
                            + " \" is not valid SpEL");
        });
    }

    @Test
    void anUnknownVariableFailsStartup(RedisNode redis) {
        LockContexts.runner(redis).withBean(UnknownVariable.class).run(context -> assertThat(context
            .getStartupFailure()).hasMessageContaining("Invalid @DistributedLock on "
                    + "LockKeyExpressionTest.UnknownVariable.reserve(String): key \"'stock:' + #skuu\" refers to "
                    + "#skuu, which is not a parameter of the method"));
    }

    @Test
    void badDurationsFailStartupNamingTheAttribute(RedisNode redis) {
        LockContexts.runner(redis).withBean(BadWaitTime.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Invalid @DistributedLock on LockKeyExpressionTest.BadWaitTime.run(): waitTime "
                    + "\"2 seconds\" is not a duration such as \"500ms\", \"2s\" or \"PT2S\""));
        LockContexts.runner(redis).withBean(NegativeWaitTime.class).run(context -> assertThat(context
            .getStartupFailure()).hasMessageContaining("waitTime must not be negative, but was \"-1s\""));
        LockContexts.runner(redis).withBean(ZeroLease.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("Invalid @DistributedLock on LockKeyExpressionTest.ZeroLease.run(): leaseTime "
                    + "must be at least 1ms"));
        LockContexts.runner(redis).withBean(NegativeHold.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("holdAtLeast must not be negative"));
        LockContexts.runner(redis).withBean(LongHold.class).run(context -> assertThat(context.getStartupFailure())
            .hasMessageContaining("holdAtLeast must be at most 7 days, but was \"8d\""));
        LockContexts.runner(redis).withBean(PlaceholderWaitTime.class).run(context -> assertThat(context
            .getStartupFailure()).hasMessageContaining("Invalid @DistributedLock on "
                    + "LockKeyExpressionTest.PlaceholderWaitTime.run(): waitTime \"${test.wait}\"")
            .hasMessageContaining("test.wait"));
        LockContexts.runner(redis).withBean(PlaceholderWaitTime.class).withPropertyValues("test.wait=250ms")
            .run(context -> assertThat(context).hasNotFailed());
        LockContexts.runner(redis).withBean(PlaceholderWaitTime.class).withPropertyValues("test.wait=30")
            .run(context -> assertThat(context.getStartupFailure()).hasMessageContaining("Invalid @DistributedLock on "
                    + "LockKeyExpressionTest.PlaceholderWaitTime.run(): waitTime \"${test.wait}\" (resolved to "
                    + "\"30\") has no unit, so it would mean 30 milliseconds; write the unit, such as \"30s\" or "
                    + "\"30ms\""));
        LockContexts.runner(redis).withBean(PlaceholderWaitTime.class).withPropertyValues("test.wait=0")
            .run(context -> assertThat(context).hasNotFailed());
    }

    @Test
    void privateAndStaticMethodsFailStartup(RedisNode redis) {
        LockContexts.runner(redis).withBean(PrivateMethod.class).run(context -> assertThat(context
            .getStartupFailure()).hasMessageContaining("Invalid @DistributedLock on "
                    + "LockKeyExpressionTest.PrivateMethod.hidden(): a Spring proxy cannot intercept a static or "
                    + "private method"));
    }

    record Order(long id, String customer) {
    }

    record Customer(String name) {
    }

    static class Item {

        private final long id;

        Item(long id) {
            this.id = id;
        }

        public long getId() {
            return this.id;
        }
    }

    public static class KeyPrefixes {

        public String stock(String sku) {
            return "tenant-a:stock:" + sku;
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class KeysConfiguration {

        @Bean
        Keys keys() {
            return new Keys();
        }

        @Bean
        BadKeys badKeys() {
            return new BadKeys();
        }

        @Bean
        KeyPrefixes keyPrefixes() {
            return new KeyPrefixes();
        }
    }

    /** Each method returns the key of the lock it runs under. */
    static class Keys {

        @DistributedLock(key = "'stock:' + #sku")
        public String byName(String sku) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "'p0:' + #p0")
        public String byP0(String sku) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "'a0:' + #a0")
        public String byA0(String sku) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "'order:' + #order.id")
        public String byProperty(Order order) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "'customer:' + #customer.name()")
        public String byRecordComponent(Customer customer) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "@keyPrefixes.stock(#sku)")
        public String byBean(String sku) {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "'nightly-report'")
        public String literal() {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "#root.methodName")
        public String byRootMethodName() {
            return CurrentLock.required().key();
        }

        @DistributedLock(key = "#count")
        public String byNumber(int count) {
            return CurrentLock.required().key();
        }
    }

    /** Keys that pass the startup checks but fail at the call. */
    static class BadKeys {

        private final AtomicInteger invocations = new AtomicInteger();

        public int invocations() {
            return this.invocations.get();
        }

        @DistributedLock(key = "#root.target.item.missing")
        public void unknownProperty() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "#root.target.nothing()")
        public void nullKey() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "'  '")
        public void blankKey() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "#root.target.identity()")
        public void identityKey() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "'a{b}'")
        public void bracedKey() {
            this.invocations.incrementAndGet();
        }

        @DistributedLock(key = "nightly-report")
        public void unquotedLiteral() {
            this.invocations.incrementAndGet();
        }

        public Item getItem() {
            return new Item(1);
        }

        public String nothing() {
            return null;
        }

        public Object identity() {
            return new Object();
        }
    }

    static class SyntaxError {

        @DistributedLock(key = "'stock:' + ")
        public void reserve(String sku) {
        }
    }

    static class UnknownVariable {

        @DistributedLock(key = "'stock:' + #skuu")
        public void reserve(String sku) {
        }
    }

    static class BadWaitTime {

        @DistributedLock(key = "'run'", waitTime = "2 seconds")
        public void run() {
        }
    }

    static class NegativeWaitTime {

        @DistributedLock(key = "'run'", waitTime = "-1s")
        public void run() {
        }
    }

    static class ZeroLease {

        @DistributedLock(key = "'run'", leaseTime = "0")
        public void run() {
        }
    }

    static class LongHold {

        @DistributedLock(key = "'run'", holdAtLeast = "8d")
        public void run() {
        }
    }

    static class NegativeHold {

        @DistributedLock(key = "'run'", holdAtLeast = "-5ms")
        public void run() {
        }
    }

    static class PlaceholderWaitTime {

        @DistributedLock(key = "'run'", waitTime = "${test.wait}")
        public void run() {
        }
    }

    static class PrivateMethod {

        public void visible() {
            hidden();
        }

        @DistributedLock(key = "'hidden'")
        private void hidden() {
        }
    }
}
