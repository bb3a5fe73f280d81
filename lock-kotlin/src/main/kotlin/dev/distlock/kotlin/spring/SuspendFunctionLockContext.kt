package dev.distlock.kotlin.spring

import dev.distlock.LockHandle
import dev.distlock.kotlin.CoroutineLock
import java.util.function.BiFunction
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext

/**
 * Used by the Spring Boot starter, not an API: gives a `@DistributedLock` suspend function its lock in the coroutine
 * context. The starter finds this class by name (its presence turns the support on), and before it invokes the
 * function under the lock it replaces the call's continuation by the one [apply] returns, whose context also holds
 * [CoroutineLock]. Spring Framework takes only that context from the continuation: it runs the function in a coroutine
 * of its own and hands its outcome to the caller's original continuation.
 */
public class SuspendFunctionLockContext : BiFunction<Any, LockHandle, Any> {

    /** The continuation with [lock] added to its context; resuming it resumes the given one. */
    override fun apply(continuation: Any, lock: LockHandle): Any {
        @Suppress("UNCHECKED_CAST")
        val original = continuation as Continuation<Any?>
        return LockingContinuation(original, original.context + CoroutineLock(lock))
    }

    private class LockingContinuation(
        private val original: Continuation<Any?>,
        override val context: CoroutineContext,
    ) : Continuation<Any?> {

        override fun resumeWith(result: Result<Any?>) = original.resumeWith(result)
    }
}
