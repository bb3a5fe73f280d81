package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;

/** The plain lock: a hash {@code <prefix>:{key}:lock} (acquire.lua, release.lua, renew.lua). */
final class ExclusiveLock extends LockType {

    ExclusiveLock(Context context) {
        super(context);
    }

    @Override
    String releaseChannel(String key) {
        return this.context.keys().releaseChannel(key);
    }

    @Override
    long acquire(Hold hold, String holdId, String leaseMillis, boolean waiting) {
        return this.context.scripts().acquire(lockHash(hold), hold.ownerToken, holdId, leaseMillis);
    }

    @Override
    long release(Hold hold, String holdId, String keepHeldMillis) {
        return this.context.scripts().release(lockHash(hold), hold.ownerToken, holdId, hold.releaseChannel,
                this.context.clientId(), this.context.tokenRetentionMillis(), keepHeldMillis, publishCommand());
    }

    @Override
    boolean[] renew(List<Hold> holds, String leaseMillis) {
        List<String> hashes = new ArrayList<>(holds.size());
        List<String> tokens = new ArrayList<>(holds.size());
        for (Hold hold : holds) {
            hashes.add(lockHash(hold));
            tokens.add(hold.ownerToken);
        }
        return this.context.scripts().renew(hashes, tokens, leaseMillis);
    }

    @Override
    List<String> keys(Hold hold) {
        return List.of(lockHash(hold));
    }

    private String lockHash(Hold hold) {
        return this.context.keys().lockHash(hold.key());
    }
}
