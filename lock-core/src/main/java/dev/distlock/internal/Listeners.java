package dev.distlock.internal;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.distlock.LockListener;

/** Calls a {@link dev.distlock.LockListener} so that its failure never breaks a lock operation. */
public final class Listeners {

    private static final Log logger = LogFactory.getLog(Listeners.class);

    private Listeners() {
    }

    public static void call(Runnable event) {
        try {
            event.run();
        }
        catch (RuntimeException ex) {
            logger.warn("A LockListener failed", ex);
        }
    }
}
