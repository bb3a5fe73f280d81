package dev.distlock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * Checks the {@code distlock.*} properties as a whole once every bean is created: an unknown name or a duration
 * without a unit stops startup (see {@link DistributedLockPropertiesCheck}).
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
public final class DistributedLockPropertiesCheckAutoConfiguration {

    @Bean
    static DistributedLockPropertiesCheck distributedLockPropertiesCheck(ApplicationContext context) {
        return new DistributedLockPropertiesCheck(context);
    }
}
