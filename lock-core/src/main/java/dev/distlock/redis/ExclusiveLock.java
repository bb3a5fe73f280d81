package dev.distlock.redis;

import java.util.List;

/** The plain lock: a hash {@code <prefix>:{key}:lock} (acquire.lua, release.lua, renew.lua). */
final class ExclusiveLock extends LockType {

    /** The lock hash's suffix: {@code <prefix>:{key}:lock}, as {@link LockKeys#lockHash} names it. */
    private static final String HASH = "lock";

    ExclusiveLock(Context context) {
        super(context);
    }

    @Override
    String releaseChannel(String key) {
        return this.context.keys().releaseChannel(key);
    }

    @Override
    long acquire(Hold hold, Grant grant) {
        return this.context.scripts().acquire(lockHash(hold), hold.ownerToken, grant);
    }

    @Override
    long release(Hold hold, Release release) {
        return releasePlainHash(hold, HASH, release);
    }

    @Override
    int[] renew(List<Hold> holds, String leaseMillis) {
        return renewPlainHashes(holds, HASH, leaseMillis);
    }

    @Override
    List<String> keys(Hold hold) {
        return List.of(lockHash(hold));
    }

    private String lockHash(Hold hold) {
        return name(hold, HASH);
    }
}
