package dev.distlock.sample.wiki;

import java.time.Duration;
import java.util.regex.Pattern;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

import dev.distlock.sample.wiki.PageStore.Page;

/**
 * {@code PUT /pages/{id}} appends the request body (one line of text) as an edit under a lock per page;
 * {@code /unlocked} does it without the lock; {@code /slow} stalls past its lease to show the fencing check.
 */
@RestController
@RequestMapping("/pages")
public class WikiController {

    private static final Pattern PAGE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    private final WikiService wiki;

    private final PageEditor editor;

    private final SlowEditor slowEditor;

    private final PageStore store;

    private final WikiProperties properties;

    public WikiController(WikiService wiki, PageEditor editor, SlowEditor slowEditor, PageStore store,
            WikiProperties properties) {
        this.wiki = wiki;
        this.editor = editor;
        this.slowEditor = slowEditor;
        this.store = store;
        this.properties = properties;
    }

    @GetMapping("/{id}")
    public Page page(@PathVariable String id) {
        return this.store.page(checkedId(id));
    }

    /** Applies the edit once; a repeat of the same edit within the duplicate window answers applied=false. */
    @PutMapping("/{id}")
    public SaveResult save(@PathVariable String id, @RequestBody(required = false) String edit) {
        String checkedEdit = checkedEdit(edit);
        return this.wiki.save(checkedId(id), checkedEdit)
            .map(page -> new SaveResult(true, page))
            .orElseGet(() -> new SaveResult(false, this.store.page(id)));
    }

    @PutMapping("/{id}/unlocked")
    public SaveResult saveUnlocked(@PathVariable String id, @RequestBody(required = false) String edit) {
        return new SaveResult(true, this.editor.appendUnlocked(checkedId(id), checkedEdit(edit)));
    }

    @PutMapping("/{id}/slow")
    public SaveResult saveSlowly(@PathVariable String id, @RequestBody(required = false) String edit,
            @RequestParam(defaultValue = "300") long leaseMillis, @RequestParam(defaultValue = "1500") long pauseMillis) {
        if (leaseMillis < 50 || leaseMillis > 60_000 || pauseMillis < 0 || pauseMillis > 10_000) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "leaseMillis must be 50..60000 and pauseMillis 0..10000");
        }
        return new SaveResult(true, this.slowEditor.append(checkedId(id), checkedEdit(edit),
                Duration.ofMillis(leaseMillis), Duration.ofMillis(pauseMillis)));
    }

    private static String checkedId(String id) {
        if (!PAGE_ID.matcher(id).matches()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    "page id must be 1 to 64 letters, digits, '-' or '_'");
        }
        return id;
    }

    private String checkedEdit(String edit) {
        if (edit == null || edit.isBlank()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "the edit (request body) must not be empty; "
                    + "send it as Content-Type: text/plain (curl -H 'Content-Type: text/plain' -d 'hello' ...)");
        }
        if (edit.length() > this.properties.getMaxEditLength()) {
            throw new ResponseStatusException(HttpStatus.PAYLOAD_TOO_LARGE, "an edit may have at most "
                    + this.properties.getMaxEditLength() + " characters, but had " + edit.length());
        }
        if (edit.chars().anyMatch(Character::isISOControl)) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "an edit must be one line of text");
        }
        return edit;
    }

    /** Whether the edit was applied (false for a repeated save), and the page after it. */
    public record SaveResult(boolean applied, Page page) {
    }
}
