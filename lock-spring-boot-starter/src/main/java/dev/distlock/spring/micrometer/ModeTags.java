package dev.distlock.spring.micrometer;

import java.util.Arrays;
import java.util.Locale;

import dev.distlock.LockMode;

/** The tag value of each {@link LockMode}: its name in lower case, computed once, shared by meters and observations. */
final class ModeTags {

    private static final String[] TAGS = Arrays.stream(LockMode.values())
        .map(mode -> mode.name().toLowerCase(Locale.ROOT))
        .toArray(String[]::new);

    private ModeTags() {
    }

    /** {@code exclusive}, {@code read}, {@code write}, {@code fair}, {@code semaphore} or {@code fair_semaphore}. */
    static String of(LockMode mode) {
        return TAGS[mode.ordinal()];
    }
}
