package dev.distlock.sample.wiki;

import java.util.Optional;

import org.springframework.stereotype.Service;

import dev.distlock.sample.wiki.PageStore.Page;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.OnNotAcquired;

/**
 * Saves edits, applying a save repeated within the duplicate window once ("Ctrl+S pressed five times"): the first save
 * holds a lock on the page and the edit's fingerprint for at least the window, and the repeats find it held and are
 * skipped.
 */
@Service
public class WikiService {

    private final PageEditor editor;

    public WikiService(PageEditor editor) {
        this.editor = editor;
    }

    /** Returns the page after the edit, or empty when the same edit was saved within the window. */
    @DistributedLock(key = "'save:' + #id + ':' + @editFingerprint.of(#edit)", waitTime = "0",
            holdAtLeast = "${sample.wiki.duplicate-window:5s}", onNotAcquired = OnNotAcquired.SKIP)
    public Optional<Page> save(String id, String edit) {
        return Optional.of(this.editor.append(id, edit));
    }
}
