package dev.distlock.kotlin

import dev.distlock.LockHandle
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlinx.coroutines.currentCoroutineContext

/**
 * The lock held around a coroutine: the element that [withLock] and a `@DistributedLock` suspend function put in the
 * coroutine context, so that code deeper in the call finds the handle (for its fencing token) without passing it along.
 * Coroutines started inside inherit it; the lock is still released when the block that took it ends.
 */
public class CoroutineLock internal constructor(
    /** The held lock: the innermost one when blocks that lock are nested. */
    public val handle: LockHandle,
) : AbstractCoroutineContextElement(CoroutineLock) {

    /** The key of [CoroutineLock] in a coroutine context. */
    public companion object Key : CoroutineContext.Key<CoroutineLock>

    override fun toString(): String = "CoroutineLock(${handle.key()})"
}

/** The lock of the innermost enclosing [withLock] block or `@DistributedLock` suspend function, or null outside one. */
public suspend fun currentLock(): LockHandle? = currentCoroutineContext()[CoroutineLock]?.handle

/**
 * The lock of the innermost enclosing [withLock] block or `@DistributedLock` suspend function.
 *
 * @throws IllegalStateException outside one
 */
public suspend fun requiredLock(): LockHandle = currentLock()
    ?: throw IllegalStateException("No lock is held around this coroutine: call it inside withLock or a "
        + "@DistributedLock suspend function")
