package dev.distlock.spring.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
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
@AutoConfiguration(afterName = { BootLine.BOOT4_REDIS, BootLine.BOOT3_REDIS })
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties({ DistributedLockProperties.class, DistributedLockSafetyProperties.class })
public final class DistributedLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockService.class)
    RedisLockService redisLockService(DistributedLockProperties properties, DistributedLockSafetyProperties safety,
            RestartGraceMonitor restartGrace, ObjectProvider<StringRedisTemplate> templates,
            ObjectProvider<RedisConnectionFactory> connectionFactories, ObjectProvider<LockEventListener> listeners,
            Environment environment) {
        RedisLockServiceBuilder builder = RedisLockService.builder(template(templates, connectionFactories))
            .applicationName(environment.getProperty("spring.application.name")); // in its instance record
        BuilderProperties settings = sharedSettings(builder::keyPrefix, builder::maxKeyLength,
                builder::defaultWaitTime, builder::watchdogLease, builder::renewalInterval, builder::tokenRetention,
                properties)
            .set("restartGrace", FreshRedis.PROPERTY, restartGrace.grace(), builder::restartGrace)
            .set("evictionPolicyCheck", DistributedLockSafetyProperties.PREFIX + ".eviction-policy-check",
                    safety.getEvictionPolicyCheck(), builder::evictionPolicyCheck)
            .set("shardingProxy", "distlock.sharding-proxy", properties.isShardingProxy(), builder::shardingProxy)
            .set("logKeys", "distlock.log-keys", properties.isLogKeys(), builder::logKeys)
            .set("callTimeout", "distlock.redis.call-timeout", properties.getRedis().getCallTimeout(),
                    builder::callTimeout)
            .setIfPresent("waitStrategy", "distlock.wait-strategy", properties.getWaitStrategy(),
                    builder::waitStrategy);
        HandOffProperties handOff = properties.getHandOff();
        settings.name("maxHandOffs", "distlock.hand-off.limit", handOff.getLimit())
            .name("maxTime", "distlock.hand-off.max-time", handOff.getMaxTime())
            .apply(() -> builder.handOffLimit(handOff.getLimit(), handOff.getMaxTime()), "distlock.hand-off.limit");
        DistributedLockProperties.ReplicaAcknowledgements acknowledgements = properties.getReplicaAcknowledgements();
        String replicas = "distlock.replica-acknowledgements.replicas";
        settings.name("replicaAcknowledgements", replicas, acknowledgements.getReplicas())
            .name("replicas", replicas, acknowledgements.getReplicas())
            .name("timeout", "distlock.replica-acknowledgements.timeout", acknowledgements.getTimeout())
            .apply(() -> builder.replicaAcknowledgements(acknowledgements.getReplicas(),
                    acknowledgements.getTimeout()), replicas);
        List<LockEventListener> all = listeners.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.listener(CompositeLockEventListener.of(all));
        }
        return settings.build(builder::build);
    }

    /**
     * Maps the settings both lock services share, in their builder's names. The quorum builder passes them on to one
     * {@link RedisLockServiceBuilder} per master, whose refusals use the same names.
     */
    static BuilderProperties sharedSettings(Consumer<String> keyPrefix, IntConsumer maxKeyLength,
            Consumer<Duration> defaultWaitTime, Consumer<Duration> watchdogLease, Consumer<Duration> renewalInterval,
            Consumer<Duration> tokenRetention, DistributedLockProperties properties) {
        return new BuilderProperties()
            .set("keyPrefix", "distlock.key-prefix", properties.getKeyPrefix(), keyPrefix)
            .set("maxKeyLength", "distlock.max-key-length", properties.getMaxKeyLength(), maxKeyLength::accept)
            .set("defaultWaitTime", "distlock.default-wait-time", properties.getDefaultWaitTime(), defaultWaitTime)
            .set("watchdogLease", "distlock.watchdog.lease", properties.getWatchdog().getLease(), watchdogLease)
            .setIfPresent("renewalInterval", "distlock.watchdog.renewal-interval",
                    properties.getWatchdog().getRenewalInterval(), renewalInterval)
            .setIfPresent("tokenRetention", "distlock.token-retention", properties.getTokenRetention(),
                    tokenRetention);
    }

    /**
     * Logs the restart grace when a lock first meets it and reports it to the health details; also holds the grace in
     * force, which is 0 for a Redis the application started itself (see {@link FreshRedis}).
     */
    @Bean
    @ConditionalOnMissingBean
    RestartGraceMonitor distributedLockRestartGraceMonitor(DistributedLockSafetyProperties safety,
            Environment environment, ListableBeanFactory beanFactory) {
        Class<?> detailsType = BootLine.redisConnectionDetails(getClass().getClassLoader());
        Object details = (detailsType != null) ? beanFactory.getBeanProvider(detailsType).getIfUnique() : null;
        return new RestartGraceMonitor(FreshRedis.restartGrace(safety, environment, details));
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
