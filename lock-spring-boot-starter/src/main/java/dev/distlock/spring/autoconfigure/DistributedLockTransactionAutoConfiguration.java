package dev.distlock.spring.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.TransactionExecutionListener;

import dev.distlock.spring.TransactionLeaseCheck;

/**
 * Registers the {@link TransactionLeaseCheck}, which Spring Boot adds to the transaction managers it auto-configures:
 * a transaction begun inside a {@code @DistributedLock} call is rolled back instead of committed when the lock's lease
 * was lost by then.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@ConditionalOnClass(TransactionExecutionListener.class)
public final class DistributedLockTransactionAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    TransactionLeaseCheck distributedLockTransactionLeaseCheck() {
        return new TransactionLeaseCheck();
    }
}
