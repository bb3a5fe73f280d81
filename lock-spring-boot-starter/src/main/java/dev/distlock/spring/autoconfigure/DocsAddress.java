package dev.distlock.spring.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * Links to the docs for startup failures: the address a user can open, set by the build property
 * {@code distlock.docs.url} (in {@code docs.properties}), not a path in the repository.
 */
final class DocsAddress {

    /** The repository's pages, if the build did not fill in the address. */
    static final String FALLBACK = "https://github.com/distlock/distlock/blob/main/docs";

    private static final String BASE = base();

    private DocsAddress() {
    }

    /** The address of a docs page, such as {@code spring-boot.md}. */
    static String page(String page) {
        return BASE + "/" + page;
    }

    private static String base() {
        Properties docs = new Properties();
        try (InputStream in = DocsAddress.class.getResourceAsStream("docs.properties")) {
            if (in != null) {
                docs.load(in);
            }
        }
        catch (IOException ex) {
            return FALLBACK;
        }
        String url = docs.getProperty("url", "").strip();
        return (url.startsWith("http://") || url.startsWith("https://")) ? url.replaceAll("/+$", "") : FALLBACK;
    }
}
