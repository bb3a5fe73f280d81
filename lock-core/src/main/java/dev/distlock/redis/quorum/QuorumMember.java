package dev.distlock.redis.quorum;

import dev.distlock.LockHandle;

/** A member lock of a quorum lock: the handle one master's {@code RedisLockService} gave. */
record QuorumMember(QuorumNode node, LockHandle handle) {
}
