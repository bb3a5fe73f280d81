package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockListener;

/**
 * Passes every event to several listeners in order. A listener that throws is logged and does not keep the others
 * from being called.
 */
final class CompositeLockListener implements LockListener {

    private static final Log logger = LogFactory.getLog(CompositeLockListener.class);

    private final List<LockListener> listeners;

    private CompositeLockListener(List<LockListener> listeners) {
        this.listeners = listeners;
    }

    /** The only listener itself, or a composite of several. */
    static LockListener of(List<LockListener> listeners) {
        return (listeners.size() == 1) ? listeners.get(0) : new CompositeLockListener(List.copyOf(listeners));
    }

    private void each(Consumer<LockListener> event) {
        for (LockListener listener : this.listeners) {
            try {
                event.accept(listener);
            }
            catch (RuntimeException ex) {
                logger.warn("LockListener " + listener + " failed", ex);
            }
        }
    }

    @Override
    public void acquired(LockHandle lock, Duration waited) {
        each(listener -> listener.acquired(lock, waited));
    }

    @Override
    public void notAcquired(String key, String name, Duration waited) {
        each(listener -> listener.notAcquired(key, name, waited));
    }

    @Override
    public void acquireFailed(String key, String name, Duration waited, LockException reason) {
        each(listener -> listener.acquireFailed(key, name, waited, reason));
    }

    @Override
    public void released(LockHandle lock, Duration held) {
        each(listener -> listener.released(lock, held));
    }

    @Override
    public void releaseFailed(LockHandle lock, LockException reason) {
        each(listener -> listener.releaseFailed(lock, reason));
    }

    @Override
    public void renewed(int count) {
        each(listener -> listener.renewed(count));
    }

    @Override
    public void renewalFailed(LockHandle lock, Exception reason) {
        each(listener -> listener.renewalFailed(lock, reason));
    }

    @Override
    public void leaseLost(LockHandle lock, LeaseLostException reason) {
        each(listener -> listener.leaseLost(lock, reason));
    }
}
