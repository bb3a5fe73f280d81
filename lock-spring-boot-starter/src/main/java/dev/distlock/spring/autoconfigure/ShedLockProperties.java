package dev.distlock.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/** Settings of the ShedLock provider under {@code distlock.shedlock.*}; a bad key prefix stops startup. */
@ConfigurationProperties("distlock.shedlock")
public class ShedLockProperties implements Validator {

    /** Whether to register distlock's ShedLock LockProvider when ShedLock is on the class path and none is defined. */
    private boolean enabled = true;

    /** Prefix of the lock key of every ShedLock lock name; no braces or control characters. */
    private String keyPrefix = "shedlock:";

    public boolean isEnabled() {
        return this.enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getKeyPrefix() {
        return this.keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    @Override
    public boolean supports(Class<?> type) {
        return ShedLockProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        KeyPrefixes.check(((ShedLockProperties) target).getKeyPrefix(), "keyPrefix", errors);
    }
}
