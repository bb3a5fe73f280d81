package dev.distlock.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports an {@link InvalidDistributedLockPropertiesException} in Boot's startup failure box, one line a property. */
final class InvalidDistributedLockPropertiesFailureAnalyzer
        extends AbstractFailureAnalyzer<InvalidDistributedLockPropertiesException> {

    static final String ACTION = "Correct or remove the properties above (the distlock properties are listed at "
            + DocsAddress.page("spring-boot.md") + "). Set " + DistributedLockPropertiesCheck.MODE_PROPERTY
            + "=warn to only log such properties, or =off to skip the check.";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDistributedLockPropertiesException cause) {
        return new FailureAnalysis("Invalid distlock configuration:\n\n    " + String.join("\n    ", cause.problems())
                + "\n", ACTION, cause);
    }
}
