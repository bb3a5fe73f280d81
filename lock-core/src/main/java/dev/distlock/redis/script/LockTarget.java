package dev.distlock.redis.script;

/** What a script call needs of one owner's hold on a lock: the lock's key, the owner token and the release channel. */
public interface LockTarget {

    /** The lock's key, as the caller gave it. */
    String key();

    /** The owner token stored in Redis. */
    String ownerToken();

    /** The channel a release of this lock publishes on. */
    String releaseChannel();
}
