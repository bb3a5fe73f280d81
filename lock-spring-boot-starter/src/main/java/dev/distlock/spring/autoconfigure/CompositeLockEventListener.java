package dev.distlock.spring.autoconfigure;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.LockEvent;
import dev.distlock.LockEventListener;

/**
 * Passes every event to several listeners in order: one method, so no kind of event can be left out. A listener that
 * throws is logged and does not keep the others from being called.
 */
final class CompositeLockEventListener implements LockEventListener {

    private static final Log logger = LogFactory.getLog(CompositeLockEventListener.class);

    private final List<LockEventListener> listeners;

    private CompositeLockEventListener(List<LockEventListener> listeners) {
        this.listeners = listeners;
    }

    /** The only listener itself, or a composite of several. */
    static LockEventListener of(List<? extends LockEventListener> listeners) {
        return (listeners.size() == 1) ? listeners.get(0) : new CompositeLockEventListener(List.copyOf(listeners));
    }

    @Override
    public void onEvent(LockEvent event) {
        for (LockEventListener listener : this.listeners) {
            try {
                listener.onEvent(event);
            }
            catch (RuntimeException ex) {
                logger.warn("LockEventListener " + listener + " failed on " + event.getClass().getSimpleName(), ex);
            }
        }
    }
}
