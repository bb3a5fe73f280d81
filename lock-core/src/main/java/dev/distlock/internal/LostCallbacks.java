package dev.distlock.internal;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import dev.distlock.KeyText;
import dev.distlock.LeaseLostException;

/**
 * The lease-lost callbacks of one hold or handle, each run exactly once: by {@link #fire} when the loss is found, or at
 * once by {@link #add} when it is known already. Whoever removes a callback from the list runs it, so a callback added
 * while the loss is being reported still runs once. A callback that throws is logged and does not stop the others.
 */
public final class LostCallbacks {

    private static final Log logger = LogFactory.getLog(LostCallbacks.class);

    private final List<Consumer<LeaseLostException>> callbacks = new CopyOnWriteArrayList<>();

    /** Adds a callback; runs it at once, on the calling thread, if {@code lostReason} already gives a loss. */
    public void add(Consumer<LeaseLostException> callback, Supplier<@Nullable LeaseLostException> lostReason) {
        this.callbacks.add(callback);
        LeaseLostException reason = lostReason.get(); // read after adding, so a concurrent fire() is not missed
        if (reason != null && this.callbacks.remove(callback)) {
          call(callback, reason);
        }
    }

    /** Runs every callback not run yet. */
    public void fire(LeaseLostException reason) {
        for (Consumer<LeaseLostException> callback : this.callbacks) {
            if (this.callbacks.remove(callback)) {
              call(callback, reason);
            }
        }
    }

    /** Drops every callback not run yet: the handle was released, so none of them is owed. */
    public void clear() {
        this.callbacks.clear();
    }

    public static void call(Consumer<LeaseLostException> callback, LeaseLostException reason) {
        try {
            callback.accept(reason);
        }
        catch (RuntimeException ex) {
            logger.warn("Lease-lost callback for lock " + KeyText.quote(reason.key()) + " failed", ex);
        }
    }
}
