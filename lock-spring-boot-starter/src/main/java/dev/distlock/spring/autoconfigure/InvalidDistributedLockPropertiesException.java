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
        super("Invalid distlock configuration: " + String.join("; ", problems) + ". The properties are listed in "
                + "docs/spring-boot.md.");
        this.problems = List.copyOf(problems);
    }

    /** One line per property, naming where it was set. */
    List<String> problems() {
        return this.problems;
    }
}
