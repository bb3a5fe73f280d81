package dev.distlock.sample.wiki;

import org.springframework.stereotype.Service;

import dev.distlock.sample.Pause;
import dev.distlock.sample.wiki.PageStore.Page;
import dev.distlock.spring.CurrentLock;
import dev.distlock.spring.DistributedLock;

/** Appends edits under a lock per page, writing with the lock's fencing token. */
@Service
public class PageEditor {

    private final PageStore store;

    private final WikiProperties properties;

    public PageEditor(PageStore store, WikiProperties properties) {
        this.store = store;
        this.properties = properties;
    }

    @DistributedLock(key = "'page:' + #id", waitTime = "10s")
    public Page append(String id, String edit) {
        long fencingToken = CurrentLock.required().fencingToken();
        String body = this.store.read(id);
        Pause.of(this.properties.getThinkTime());
        this.store.write(id, body + edit + "\n", fencingToken);
        return this.store.page(id);
    }

    /** The same read-modify-write without the lock, to show the lost edits it causes. */
    public Page appendUnlocked(String id, String edit) {
        String body = this.store.read(id);
        Pause.of(this.properties.getThinkTime());
        this.store.writeUnfenced(id, body + edit + "\n");
        return this.store.page(id);
    }
}
