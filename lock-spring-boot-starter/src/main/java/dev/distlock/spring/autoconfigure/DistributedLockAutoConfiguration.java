package dev.distlock.spring.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import dev.distlock.LockEventListener;
import dev.distlock.LockService;
import dev.distlock.redis.RedisLockService;
import dev.distlock.redis.RedisLockServiceBuilder;
import dev.distlock.spring.RestartGraceMonitor;

/**
 * Registers a {@link RedisLockService} as the {@link LockService}, on the context's {@link StringRedisTemplate} (or
 * its {@link RedisConnectionFactory}), configured from {@code distlock.*} and reporting to every {@link LockEventListener}
 * bean. Backs off when the application defines its own {@link LockService}; {@code distlock.enabled=false} turns it
 * off. The service checks Redis's permissions at startup and is closed before the Redis connections when the context
 * closes (see {@link LockServiceLifecycle}).
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ DistributedLockProperties.class, DistributedLockSafetyProperties.class })
public final class DistributedLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockService.class)
    RedisLockService redisLockService(DistributedLockProperties properties, DistributedLockSafetyProperties safety,
            RestartGraceMonitor restartGrace, ObjectProvider<StringRedisTemplate> templates,
            ObjectProvider<RedisConnectionFactory> connectionFactories, ObjectProvider<LockEventListener> listeners) {
        RedisLockServiceBuilder builder = RedisLockService.builder(template(templates, connectionFactories))
            .keyPrefix(properties.getKeyPrefix())
            .defaultWaitTime(properties.getDefaultWaitTime())
            .watchdogLease(properties.getWatchdog().getLease())
            .restartGrace(restartGrace.grace())
            .evictionPolicyCheck(safety.getEvictionPolicyCheck())
            .shardingProxy(properties.isShardingProxy())
            .logKeys(properties.isLogKeys())
            .handOffLimit(properties.getHandOff().getLimit(), properties.getHandOff().getMaxTime())
            .maxKeyLength(properties.getMaxKeyLength());
        if (properties.getTokenRetention() != null) {
            builder.tokenRetention(properties.getTokenRetention());
        }
        if (properties.getWaitStrategy() != null) {
            builder.waitStrategy(properties.getWaitStrategy());
        }
        if (properties.getReplicaAcknowledgements().getReplicas() > 0) {
            builder.replicaAcknowledgements(properties.getReplicaAcknowledgements().getReplicas(),
                    properties.getReplicaAcknowledgements().getTimeout());
        }
        if (properties.getWatchdog().getRenewalInterval() != null) {
            builder.renewalInterval(properties.getWatchdog().getRenewalInterval());
        }
        List<LockEventListener> all = listeners.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.listener(CompositeLockEventListener.of(all));
        }
        return builder.build();
    }

    /**
     * Logs the restart grace when a lock first meets it and reports it to the health details; also holds the grace in
     * force, which is 0 for a Redis the application started itself (see {@link FreshRedis}).
     */
    @Bean
    @ConditionalOnMissingBean
    RestartGraceMonitor distributedLockRestartGraceMonitor(DistributedLockSafetyProperties safety,
            Environment environment, ObjectProvider<DataRedisConnectionDetails> connectionDetails) {
        return new RestartGraceMonitor(FreshRedis.restartGrace(safety, environment, connectionDetails.getIfUnique()));
    }

    @Bean
    @ConditionalOnMissingBean
    LockServiceLifecycle distributedLockServiceLifecycle(ObjectProvider<RedisLockService> lockServices,
            DistributedLockProperties properties) {
        return new LockServiceLifecycle(lockServices, properties.isVerifyAccessOnStartup());
    }

    @Bean
    @ConditionalOnMissingBean
    RedisDownShutdown distributedLockRedisDownShutdown(ObjectProvider<RedisLockService> lockServices,
            ObjectProvider<StringRedisTemplate> templates, ObjectProvider<RedisConnectionFactory> connectionFactories) {
        StringRedisTemplate template = templates.getIfUnique();
        return new RedisDownShutdown(lockServices, (template != null) ? template.getConnectionFactory()
                : connectionFactories.getIfUnique());
    }

    private static StringRedisTemplate template(ObjectProvider<StringRedisTemplate> templates,
            ObjectProvider<RedisConnectionFactory> connectionFactories) {
        StringRedisTemplate template = templates.getIfUnique();
        if (template != null) {
            return template;
        }
        RedisConnectionFactory connectionFactory = connectionFactories.getIfUnique();
        if (connectionFactory == null) {
            throw new MissingRedisConnectionException(connectionFactories.stream().count());
        }
        return new StringRedisTemplate(connectionFactory);
    }
}
