package dev.distlock.redis.script;

import java.util.EnumMap;
import java.util.Map;

import dev.distlock.LockMode;

/** The lock types of a service, one per {@link LockMode}. */
public final class LockTypes {

    private LockTypes() {
    }

    /** A new type of each mode, all sharing {@code context}. */
    public static Map<LockMode, LockType> all(LockType.Context context) {
        Map<LockMode, LockType> types = new EnumMap<>(LockMode.class);
        types.put(LockMode.EXCLUSIVE, new ExclusiveLock(context));
        types.put(LockMode.READ, new ReadLock(context));
        types.put(LockMode.WRITE, new WriteLock(context));
        types.put(LockMode.FAIR, new FairLock(context));
        types.put(LockMode.SEMAPHORE, new SemaphoreLock(context, false));
        types.put(LockMode.FAIR_SEMAPHORE, new SemaphoreLock(context, true));
        return types;
    }
}
