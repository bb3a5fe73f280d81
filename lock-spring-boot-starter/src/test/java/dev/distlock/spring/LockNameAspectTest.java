package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** A {@code @DistributedLock} method's lock is named after its annotation site, or its {@code name} attribute. */
@RedisTest
class LockNameAspectTest {

    @Test
    void locksAreNamedAfterTheBeanClassAndMethodWhateverTheKey(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Shop shop = context.getBean(Shop.class);
            Billing billing = context.getBean(Billing.class);
            assertThat(AopUtils.isAopProxy(billing)).isTrue();

            // nested classes are named with their enclosing class, as ClassUtils.getShortName has them
            assertThat(shop.reserve("alice@example.com")).isEqualTo("LockNameAspectTest.Shop.reserve");
            assertThat(shop.transfer("alice", "bob")).isEqualTo("LockNameAspectTest.Shop.transfer");
            assertThat(shop.update("42")).isEqualTo("Profile.update");
            assertThat(billing.charge("alice")).isEqualTo("LockNameAspectTest.BillingService.charge");
            assertThat(context.getBean(Names.class).acquired).containsExactly("LockNameAspectTest.Shop.reserve",
                    "LockNameAspectTest.Shop.transfer", "LockNameAspectTest.Shop.transfer", "Profile.update",
                    "LockNameAspectTest.BillingService.charge");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Shop shop() {
            return new Shop();
        }

        @Bean
        Billing billing() {
            return new BillingService();
        }

        @Bean
        Names names() {
            return new Names();
        }
    }

    static class Shop {

        @DistributedLock(key = "'user:' + #user", waitTime = "5s")
        public String reserve(String user) {
            return CurrentLock.required().name();
        }

        @DistributedLock(key = "{'account:' + #from, 'account:' + #to}", waitTime = "5s")
        public String transfer(String from, String to) {
            return CurrentLock.required().name();
        }

        @DistributedLock(key = "'profile-' + #id", name = "Profile.update", waitTime = "5s")
        public String update(String id) {
            return CurrentLock.required().name();
        }
    }

    interface Billing {

        @DistributedLock(key = "'invoice:' + #customer", waitTime = "5s")
        String charge(String customer);
    }

    static class BillingService implements Billing {

        @Override
        public String charge(String customer) {
            return CurrentLock.required().name();
        }
    }

    /** The names that listener events carry: multi-key locks report each member under the set's name. */
    static class Names implements LockEventListener {

        final List<String> acquired = new CopyOnWriteArrayList<>();

        @Override
        public void onEvent(LockEvent event) {
            if (event instanceof LockEvent.Acquired granted) {
                this.acquired.add(granted.lock().name());
            }
        }
    }
}
