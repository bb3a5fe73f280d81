package dev.distlock.redis.script;

/**
 * The arguments of the lock scripts, by name. Each script's header declares its ARGV positions with these names
 * ({@code -- ARGV[3] LEASE_MILLIS ...}), and its {@link ScriptLayout} in Java lists them in the same order;
 * {@link ScriptLayout#load} refuses a script whose header says otherwise. Arguments shared by several scripts keep one
 * position within a family: every grant script takes {@code OWNER_TOKEN, HOLD_ID, LEASE_MILLIS, WATCHDOG, REENTRY,
 * RESTART_GRACE_MILLIS} as ARGV[1] to [6], every release script {@code OWNER_TOKEN, HOLD_ID, FENCING_TOKEN, WATCHDOG,
 * KEEP_HELD_MILLIS, TOKEN_RETENTION_MILLIS, CHANNEL, PUBLISH_COMMAND} as ARGV[1] to [8]. Every argument is sent as
 * ARGV on every call: a script has one text, whatever the values.
 */
public enum ScriptArgument {

    /** The owner token the lock is held under. */
    OWNER_TOKEN,

    /** One acquisition's id within its hold, so that a retried call never counts twice. */
    HOLD_ID,

    /** The lease, in ms: the service's watchdog lease for a call the watchdog renews, else the caller's. */
    LEASE_MILLIS,

    /** '1' when the watchdog renews the hold, '0' for a fixed lease. */
    WATCHDOG,

    /** '1' for a re-entry: granted only while the owner still holds the lock. */
    REENTRY,

    /** The restart grace of a new grant, in ms; 0 for none. */
    RESTART_GRACE_MILLIS,

    /** '1' when the caller waits if refused (acquire.lua and sem-acquire.lua then mark 'waiting'). */
    WAITING,

    /** How long a waiter's place (a fair queue place, a write intent) lasts unless refreshed, in ms; 0 for none. */
    PLACE_LEASE_MILLIS,

    /** A semaphore's limit, as this call names it: the most permits its holders may have at once. */
    PERMIT_LIMIT,

    /** The permits a semaphore acquisition asks for. */
    PERMITS,

    /** '1' for a fair semaphore: granted only to the first waiter, or when nobody waits. */
    FAIR,

    /** How long the last fencing token, or a released hold's mark, is kept once the lock is free, in ms. */
    TOKEN_RETENTION_MILLIS,

    /** The fencing token of the owner's grant, which recognises a retried release after others took the lock. */
    FENCING_TOKEN,

    /** 0 to free the lock now; otherwise keep it held, unrenewed, for this many more ms. */
    KEEP_HELD_MILLIS,

    /** The release channel. */
    CHANNEL,

    /** The publish command: PUBLISH, or SPUBLISH for sharded pub/sub on a Redis Cluster. */
    PUBLISH_COMMAND,

    /** The release message: the releasing service's id. */
    MESSAGE,

    /** '1' to publish a release only when a waiting caller was refused since the last one. */
    PUBLISH_ONLY_TO_WAITERS,

    /** The owner token a hand-off grants the lock to. */
    NEW_OWNER_TOKEN,

    /** The new owner's hold id. */
    NEW_HOLD_ID,

    /** '1' when the process's run of hand-offs reached its bound: hand off only if nobody else waits. */
    LAST_OF_RUN,

    /** A fencing token to raise a record to (quorum mode). */
    RAISE_TO;
}
