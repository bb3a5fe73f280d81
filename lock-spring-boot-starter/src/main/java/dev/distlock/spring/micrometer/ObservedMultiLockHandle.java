package dev.distlock.spring.micrometer;

import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.MultiLockHandle;

/** The scoped handle of a key set: its scope is that of its last key's lock. */
final class ObservedMultiLockHandle extends ObservedLockHandle implements MultiLockHandle {

    private final MultiLockHandle locks;

    ObservedMultiLockHandle(MultiLockHandle locks, LockObservations observations) {
        super(locks, observations);
        this.locks = locks;
    }

    @Override
    public Scope openScope() {
        List<LockHandle> members = this.locks.members();
        return this.observations.openScope(members.get(members.size() - 1));
    }

    @Override
    public List<LockHandle> members() {
        return this.locks.members();
    }

    @Override
    public LockHandle member(String key) {
        return this.locks.member(key);
    }
}
