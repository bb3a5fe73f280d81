package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.distlock.LockHandle;
import dev.distlock.LockMode;
import dev.distlock.LockTimeoutException;
import dev.distlock.MultiLockHandle;
import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/** {@code @DistributedLock} selects the lock type with {@code mode} and locks several keys from a SpEL list or array. */
@RedisTest
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LockFamilyAspectTest {

    @Test
    void readersOverlapAndAWriterExcludesThem(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Library library = context.getBean(Library.class);
            // two readers inside at once: each waits, inside its read lock, for the other to arrive
            CountDownLatch bothInside = new CountDownLatch(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Boolean>> readers = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    readers.add(pool.submit(() -> library.read("book", bothInside)));
                }
                for (Future<Boolean> reader : readers) {
                    assertThat(reader.get(20, TimeUnit.SECONDS)).as("the other reader was inside too").isTrue();
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(CurrentLock.handle()).isEmpty();
            // a writer is turned away while a reader holds the read lock
            CountDownLatch readerInside = new CountDownLatch(1);
            CountDownLatch letReaderGo = new CountDownLatch(1);
            Thread reader = new Thread(() -> library.readUntil("book", readerInside, letReaderGo));
            reader.start();
            assertThat(readerInside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> library.write("book")).isInstanceOf(LockTimeoutException.class);
            letReaderGo.countDown();
            reader.join(10_000);
            assertThat(library.write("book")).isEqualTo(LockMode.WRITE.name());
        });
    }

    @Test
    void aFairLockIsTakenThroughTheAnnotation(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            assertThat(context.getBean(Library.class).fair("queue")).isTrue();
            assertThat(redis.call("EXISTS", "distlock:{queue}:fair:lock")).isEqualTo("1"); // kept for its token
        });
    }

    @Test
    void aSpelListOrArrayLocksEveryKeyAllOrNothing(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Bank bank = context.getBean(Bank.class);
            assertThat(bank.transfer("alice", "bob")).containsExactly("account:alice", "account:bob");
            assertThat(bank.all(List.of("x", "y", "z"))).containsExactly("x", "y", "z");
            assertThat(bank.all(new String[] { "p", "q" })).containsExactly("p", "q");
            // one member held elsewhere: the whole set is not taken, and nothing of it is left behind
            try (LockHandle held = context.getBean(dev.distlock.LockService.class)
                .tryAcquire("account:bob", dev.distlock.LockOptions.defaults().withOwner(new Object()))
                .orElseThrow()) {
                assertThatThrownBy(() -> bank.transfer("alice", "bob")).isInstanceOf(LockTimeoutException.class);
                assertThat(redis.lockField(LockContexts.lockHash("account:alice"), "owner")).isNull();
            }
        });
    }

    @Test
    void oppositeOrderTransfersNeverDeadlock(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Bank bank = context.getBean(Bank.class);
            AtomicInteger done = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<?> forward = pool.submit(() -> repeat(50, () -> bank.transfer("a", "b"), done));
                Future<?> backward = pool.submit(() -> repeat(50, () -> bank.transfer("b", "a"), done));
                forward.get(40, TimeUnit.SECONDS);
                backward.get(40, TimeUnit.SECONDS);
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(done).hasValue(100);
        });
    }

    @Test
    void aNullOrBlankElementFailsTheCallAndTakesNoLock(RedisNode redis) {
        LockContexts.runner(redis).withUserConfiguration(Beans.class).run(context -> {
            Bank bank = context.getBean(Bank.class);
            assertThatThrownBy(() -> bank.all(Arrays.asList("x", null))).isInstanceOf(LockKeyException.class)
                .hasMessageContaining("element 1 evaluated to null");
            assertThatThrownBy(() -> bank.all(List.of("x", " "))).isInstanceOf(LockKeyException.class)
                .hasMessageContaining("element 1 evaluated to a blank text");
            assertThatThrownBy(() -> bank.all(List.of())).isInstanceOf(LockKeyException.class)
                .hasMessageContaining("no keys at all");
            assertThat(redis.call("DBSIZE")).isEqualTo("0");
        });
    }

    private static void repeat(int times, Runnable work, AtomicInteger done) {
        for (int i = 0; i < times; i++) {
            work.run();
            done.incrementAndGet();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Library library() {
            return new Library();
        }

        @Bean
        Bank bank() {
            return new Bank();
        }
    }

    static class Library {

        @DistributedLock(key = "'book'", mode = LockMode.READ, waitTime = "10s")
        public boolean read(String book, CountDownLatch bothInside) throws InterruptedException {
            bothInside.countDown();
            return bothInside.await(10, TimeUnit.SECONDS);
        }

        @DistributedLock(key = "#book", mode = LockMode.READ, waitTime = "10s")
        public void readUntil(String book, CountDownLatch inside, CountDownLatch letGo) {
            inside.countDown();
            try {
                letGo.await(20, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }

        @DistributedLock(key = "#book", mode = LockMode.WRITE, waitTime = "300ms")
        public String write(String book) {
            return CurrentLock.required().isHeld() ? LockMode.WRITE.name() : "not held";
        }

        @DistributedLock(key = "#name", mode = LockMode.FAIR, waitTime = "2s")
        public boolean fair(String name) {
            return CurrentLock.required().isHeld();
        }
    }

    static class Bank {

        @DistributedLock(key = "{'account:' + #from, 'account:' + #to}", waitTime = "300ms")
        public List<String> transfer(String from, String to) {
            return memberKeys();
        }

        @DistributedLock(key = "#keys", waitTime = "2s")
        public List<String> all(List<String> keys) {
            return memberKeys();
        }

        @DistributedLock(key = "#keys", waitTime = "2s")
        public List<String> all(String[] keys) {
            return memberKeys();
        }

        private static List<String> memberKeys() {
            LockHandle lock = CurrentLock.required();
            assertThat(lock).isInstanceOf(MultiLockHandle.class);
            return ((MultiLockHandle) lock).members().stream().map(LockHandle::key).toList();
        }
    }
}
