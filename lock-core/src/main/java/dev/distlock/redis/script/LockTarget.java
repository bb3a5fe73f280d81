package dev.distlock.redis.script;

/** What a script call needs of one owner's hold on a lock: the lock's key, the owner token and the release channel. */
public interface LockTarget {

    /** The lock's key, as the caller gave it. */
    String key();

    /** The owner token stored in Redis. */
    String ownerToken();

    /** The channel a release of this lock publishes on. */
    String releaseChannel();

    /**
     * Whether the plain lock's key is most likely the single-hold layout's string (single-hold.lua): the hold has had
     * one acquisition only, which the watchdog renews. The scripts read that form first when so, else the hash; either
     * way they answer alike, the guess only saves Redis a command refused for the wrong form.
     */
    default boolean mayBeSingleHold() {
        return true;
    }
}
