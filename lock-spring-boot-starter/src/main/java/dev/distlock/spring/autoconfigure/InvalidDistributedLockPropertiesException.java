package dev.distlock.spring.autoconfigure;

import java.util.List;

/**
 * A {@code distlock.*} property set in a configuration file, on the command line or in a test's properties is not one
 * distlock declares, or is a duration without a unit. Stops startup;
 * {@link InvalidDistributedLockPropertiesFailureAnalyzer} reports it.
 */
final class InvalidDistributedLockPropertiesException extends IllegalStateException {

    private final List<String> problems;

    InvalidDistributedLockPropertiesException(List<String> problems) {
        // the problems last: one may end with a question ("did you mean ...?"), which no full stop may follow
        super("Invalid distlock configuration (the properties are listed at " + DocsAddress.page("spring-boot.md")
                + "): " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** One line per property, naming where it was set. */
    List<String> problems() {
        return this.problems;
    }
}
