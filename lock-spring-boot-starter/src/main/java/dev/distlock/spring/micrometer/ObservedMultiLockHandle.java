package dev.distlock.spring.micrometer;

import java.util.List;

import io.micrometer.observation.Observation;

import dev.distlock.LockHandle;
import dev.distlock.MultiLockHandle;

/** The observed handle of a key set. */
final class ObservedMultiLockHandle extends ObservedLockHandle implements MultiLockHandle {

    private final MultiLockHandle locks;

    ObservedMultiLockHandle(MultiLockHandle locks, Observation observation) {
        super(locks, observation);
        this.locks = locks;
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
