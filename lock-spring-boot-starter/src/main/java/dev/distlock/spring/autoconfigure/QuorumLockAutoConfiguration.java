package dev.distlock.spring.autoconfigure;

import java.util.List;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;

import dev.distlock.LockEventListener;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.redis.quorum.QuorumLockService;
import dev.distlock.redis.quorum.QuorumLockServiceBuilder;

/**
 * Quorum (Redlock) mode: when {@code distlock.quorum.nodes} is set, registers a {@link QuorumLockService} over those
 * masters as the {@link LockService}, so the single-Redis one of {@link DistributedLockAutoConfiguration} backs off.
 * The other {@code distlock.*} settings apply to it too. Startup fails, naming the property, when fewer than a quorum
 * of the masters answer PING, and (unless {@code distlock.verify-access-on-startup=false}) when a master's Redis user
 * lacks a permission the locks need, and when TLS to the masters fails ({@link QuorumTls}). On shutdown the service
 * closes before its connections.
 */
@AutoConfiguration(before = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@Conditional(QuorumModeCondition.class)
@ConditionalOnMissingBean(LockService.class)
@EnableConfigurationProperties({ DistributedLockProperties.class, DistributedLockSafetyProperties.class,
        QuorumProperties.class })
public final class QuorumLockAutoConfiguration {

    @Bean(destroyMethod = "close")
    QuorumConnections distributedLockQuorumConnections(QuorumProperties quorum, Environment environment,
            ObjectProvider<SslBundles> sslBundles) {
        return new QuorumConnections(quorum, QuorumTls.resolve(quorum.getSsl(), environment,
                sslBundles.getIfAvailable()));
    }

    @Bean(destroyMethod = "close")
    QuorumLockService quorumLockService(DistributedLockProperties properties, DistributedLockSafetyProperties safety,
            QuorumProperties quorum, QuorumConnections connections, ObjectProvider<LockEventListener> listeners,
            Environment environment) {
        QuorumLockServiceBuilder builder = QuorumLockService.builder(connections.templates())
            .applicationName(environment.getProperty("spring.application.name")); // in each master's instance record
        BuilderProperties settings = DistributedLockAutoConfiguration.sharedSettings(builder::keyPrefix,
                builder::maxKeyLength, builder::defaultWaitTime, builder::watchdogLease, builder::renewalInterval,
                builder::tokenRetention, properties)
            .set("nodeTimeout", QuorumProperties.PREFIX + ".node-timeout", quorum.getNodeTimeout(),
                    builder::nodeTimeout)
            .set("restartGrace", FreshRedis.PROPERTY, safety.getRestartGrace(), builder::restartGrace);
        List<LockEventListener> all = listeners.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.listener(CompositeLockEventListener.of(all));
        }
        QuorumLockService service = settings.build(builder::build);
        try {
            service.verifyQuorumReachable();
            if (properties.isVerifyAccessOnStartup()) {
                service.verifyAccess();
            }
        }
        catch (LockUnavailableException ex) {
            service.close();
            String refusal = RedisCredentialsException.refusal(ex);
            if (refusal != null) {
                throw new RedisCredentialsException(refusal, QuorumProperties.PREFIX + ".password and "
                        + QuorumProperties.PREFIX + ".username", ex);
            }
            String tlsFailure = RedisTlsException.tlsFailure(ex);
            if (tlsFailure != null) {
                throw new RedisTlsException(tlsFailure, connections.tlsProperty(), ex);
            }
            throw new IllegalStateException(QuorumProperties.PREFIX + ".nodes: " + ex.getMessage(), ex);
        }
        catch (RuntimeException ex) {
            service.close();
            throw ex;
        }
        return service;
    }
}
