package dev.distlock.spring.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

import dev.distlock.integration.DistributedLockRegistry;

/**
 * Settings of the Spring Integration LockRegistry under {@code distlock.lock-registry.*}; a bad value stops startup.
 */
@ConfigurationProperties("distlock.lock-registry")
public class LockRegistryProperties implements Validator {

    /**
     * Whether to register distlock's LockRegistry when Spring Integration is on the class path and no LockRegistry is
     * defined.
     */
    private boolean enabled = true;

    /** Prefix of the lock key of every registry key; no braces or control characters. */
    private String keyPrefix = "lock-registry:";

    /** How many unheld locks the registry keeps for reuse; held locks are always kept. */
    private int cacheCapacity = DistributedLockRegistry.DEFAULT_CACHE_CAPACITY;

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

    public int getCacheCapacity() {
        return this.cacheCapacity;
    }

    public void setCacheCapacity(int cacheCapacity) {
        this.cacheCapacity = cacheCapacity;
    }

    @Override
    public boolean supports(Class<?> type) {
        return LockRegistryProperties.class.isAssignableFrom(type);
    }

    @Override
    public void validate(Object target, Errors errors) {
        LockRegistryProperties properties = (LockRegistryProperties) target;
        KeyPrefixes.check(properties.getKeyPrefix(), "keyPrefix", errors);
        if (properties.getCacheCapacity() < 0) {
            errors.rejectValue("cacheCapacity", "negative",
                    "must not be negative, but was " + properties.getCacheCapacity());
        }
    }
}
