package dev.distlock.spring.autoconfigure;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.function.SingletonSupplier;

import dev.distlock.LockService;
import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.DistributedLockAdvisor;

/**
 * Registers the {@link DistributedLockAdvisor} that applies {@link DistributedLock}, ordered by
 * {@code distlock.aspect.order}, and makes sure an auto-proxy creator exists. Plain Spring AOP: no AspectJ weaver.
 *
 * <p>The advisor is created early, by the auto-proxy creator, so it reads its settings straight from the
 * {@link Environment} and finds the {@link LockService} only at the first locked call: creating it pulls in no Redis
 * or properties bean before the bean post-processors are ready.
 */
@AutoConfiguration(after = DistributedLockAutoConfiguration.class)
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@Import(DistributedLockAspectAutoConfiguration.AutoProxyCreatorRegistrar.class)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
public final class DistributedLockAspectAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static DistributedLockAdvisor distributedLockAdvisor(ConfigurableListableBeanFactory beanFactory,
            Environment environment, ObjectProvider<LockService> lockService) {
        DistributedLockProperties properties = Binder.get(environment)
            .bindOrCreate(DistributedLockProperties.PREFIX, DistributedLockProperties.class);
        DistributedLockAdvisor advisor = new DistributedLockAdvisor(beanFactory,
                SingletonSupplier.of(lockService::getObject), () -> properties.getOnNotAcquired().toAnnotationValue());
        advisor.setOrder(properties.getAspect().getOrder());
        return advisor;
    }

    /**
     * Registers Spring's infrastructure auto-proxy creator unless a stronger one is registered already, as
     * {@code @EnableTransactionManagement} does, so the advisor applies even with {@code spring.aop.auto=false}.
     */
    static final class AutoProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {

        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
