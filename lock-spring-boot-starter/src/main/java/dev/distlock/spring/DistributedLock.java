package dev.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.distlock.LockMode;

/**
 * Runs the annotated method while holding the distributed lock named by {@link #key()}, and releases it when the
 * method returns or throws. The lock is taken through the application's {@link dev.distlock.LockService}; the calling
 * thread owns it, so a nested call to another annotated method with the same key re-enters it.
 *
 * <pre>{@code
 * @DistributedLock(key = "'stock:' + #sku", waitTime = "2s")
 * public void reserve(String sku, int quantity) { ... }
 * }</pre>
 *
 * <p>Works on Spring beans only, through their proxy: a call from inside the same object ({@code this.reserve(..)})
 * bypasses the proxy and takes no lock. Private and static methods cannot be intercepted and fail startup. A method
 * whose work goes on after it returns holds the lock until that work completes: one returning a
 * {@code CompletableFuture} or {@code CompletionStage}, a {@code Mono}, {@code Flux} or {@code Publisher}, and a Kotlin
 * {@code suspend} function when {@code dev.distlock:lock-kotlin} is on the class path (without it, a suspend function
 * fails startup, saying to add it). Other asynchronous result types fail startup, since their work would run on after
 * the lock was released. Spring's {@code @Async} methods are blocking ones: the lock is taken and released around the
 * work on the executor's thread.
 *
 * <p>Declarations are checked when the bean is created: a SpEL syntax error, an unknown {@code #variable}, a bad
 * duration, {@link OnNotAcquired#SKIP} on a primitive (or, for a suspend function, non-nullable) return type, an
 * asynchronous result that cannot be locked or an unknown handler bean fails startup with a message naming the method.
 * May be used as a meta-annotation and on interface methods.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DistributedLock {

    /**
     * The lock key, a SpEL expression evaluated before each call: {@code "'stock:' + #sku"} (parameter by name),
     * {@code "#p0"} or {@code "#a0"} (by index), {@code "#order.id"}, {@code "@bean.method()"} (a bean), or a literal
     * in single quotes such as {@code "'nightly-report'"}. {@code #root.methodName} and {@code #root.targetClass} are
     * available too. A result that is null, blank, or an object without its own {@code toString()} fails the call
     * with a {@link LockKeyException} before the method runs.
     *
     * <p>A result that is a collection or an array locks every element's key, all or nothing, in a canonical order (so
     * two calls locking the same keys in opposite orders cannot deadlock): {@code "#skus"} for a list parameter, or an
     * inline list such as {@code "{'account:' + #from, 'account:' + #to}"}. A null or blank element fails the call.
     */
    String key();

    /**
     * The type of lock: {@link LockMode#EXCLUSIVE} (the default), {@link LockMode#READ} or {@link LockMode#WRITE} (a
     * read/write lock: many readers or one writer), or {@link LockMode#FAIR} (granted in arrival order). Each type is
     * its own lock: an exclusive and a read/write lock of the same key do not exclude each other.
     */
    LockMode mode() default LockMode.EXCLUSIVE;

    /**
     * Above 0, runs the method holding one permit of a semaphore of this many permits on the key instead of a lock:
     * at most {@code permits} calls run at once across every instance (see
     * {@link dev.distlock.LockOptions#withPermits(int)}). The wait, the lease and {@link #onNotAcquired()} work as for
     * a lock; {@code mode = FAIR} serves waiters in arrival order. A permit is not reentrant: a nested call with the
     * same key takes a permit of its own. Negative values, and {@code READ} or {@code WRITE} with permits, fail
     * startup. Every instance should name the same limit for a key.
     */
    int permits() default 0;

    /**
     * How long to wait while another owner holds the lock: {@code "500ms"}, {@code "2s"}, {@code "PT2S"} or a
     * {@code ${placeholder}}. {@code "0"} makes one attempt; empty means {@code distlock.default-wait-time}.
     */
    String waitTime() default "";

    /**
     * A fixed lease: Redis frees the lock after this long even if the method is still running, and nothing renews it.
     * Empty means a watchdog-renewed lease that lasts until the method ends (or the process dies).
     */
    String leaseTime() default "";

    /**
     * The least time the lock stays held after acquisition, even when the method returns or throws sooner: a repeated
     * call, or the same scheduled job on another node, is turned away until then. Empty means release at once. Inside
     * an outer call holding the same lock it has no effect: the outer call's release frees the lock.
     */
    String holdAtLeast() default "";

    /** What happens when the lock is still held by another owner at the end of the wait. */
    OnNotAcquired onNotAcquired() default OnNotAcquired.DEFAULT;

    /** The bean name of the {@link LockNotAcquiredHandler} used with {@link OnNotAcquired#CALL_HANDLER}. */
    String notAcquiredHandler() default "";

    /**
     * The lock's name in metrics and traces, which never show the key (see
     * {@link dev.distlock.LockOptions#withName(String)}). Empty (the default) names it after the annotation site:
     * the bean class's short name and the method's name, as {@code OrderService.reserve} ({@code Outer.Inner.reserve}
     * for a nested class).
     */
    String name() default "";
}
