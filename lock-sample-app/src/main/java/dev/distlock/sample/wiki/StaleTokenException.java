package dev.distlock.sample.wiki;

/** A write carried a fencing token older than one the page has already accepted: it was rejected. */
public class StaleTokenException extends RuntimeException {

    public StaleTokenException(String page, long token, long newest) {
        super("Rejected a stale write to page '" + page + "': its fencing token " + token
                + " is older than the newest accepted, " + newest + "; the writer's lock had expired");
    }
}
