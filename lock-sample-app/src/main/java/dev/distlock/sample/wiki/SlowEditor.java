package dev.distlock.sample.wiki;

import java.time.Duration;

import org.springframework.stereotype.Service;

import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.sample.Pause;
import dev.distlock.sample.wiki.PageStore.Page;

/**
 * An editor that stalls mid-edit for longer than its lease, as a GC pause or a slow disk would: the programmatic use
 * of {@link LockService}. When another editor takes the lock meanwhile and writes, this one's late write carries an
 * older fencing token and the page store rejects it.
 */
@Service
public class SlowEditor {

    private final LockService locks;

    private final PageStore store;

    public SlowEditor(LockService locks, PageStore store) {
        this.locks = locks;
        this.store = store;
    }

    public Page append(String id, String edit, Duration lease, Duration pause) {
        LockOptions options = LockOptions.defaults()
            .withName("SlowEditor.append")
            .withLeaseTime(lease)
            .withWaitTime(Duration.ofSeconds(10));
        return this.locks.executeLocked("page:" + id, options, lock -> {
            String body = this.store.read(id);
            Pause.of(pause);
            this.store.write(id, body + edit + "\n", lock.fencingToken());
            return this.store.page(id);
        });
    }
}
