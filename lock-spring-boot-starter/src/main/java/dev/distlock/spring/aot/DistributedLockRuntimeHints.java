package dev.distlock.spring.aot;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.boot.context.properties.bind.BindableRuntimeHintsRegistrar;
import org.jspecify.annotations.Nullable;

import dev.distlock.spring.DistributedLock;
import dev.distlock.spring.LockKeyRoot;
import dev.distlock.spring.OnNotAcquired;
import dev.distlock.spring.autoconfigure.DistributedLockProperties;
import dev.distlock.spring.autoconfigure.DistributedLockSafetyProperties;
import dev.distlock.spring.autoconfigure.DistributedLockWebProperties;
import dev.distlock.spring.autoconfigure.LockMetricsProperties;
import dev.distlock.spring.autoconfigure.LockRegistryProperties;
import dev.distlock.spring.autoconfigure.QuorumProperties;
import dev.distlock.spring.autoconfigure.ShedLockProperties;

/**
 * What a native image needs of the library beyond what Spring's AOT processing finds by itself: the Lua scripts that
 * lock-core reads from the class path, the configuration metadata that the property check reads, the {@code distlock.*}
 * properties classes (bound by reflection, nested classes and enums included), the {@code #root} object of key
 * expressions and the {@link DistributedLock} annotation. The failure analyzers and the initializer are listed in
 * {@code META-INF/spring.factories}, for which Spring registers hints itself; the beans with locked methods get theirs
 * from {@link DistributedLockBeanAotProcessor}.
 */
public final class DistributedLockRuntimeHints implements RuntimeHintsRegistrar {

    /** Where lock-core keeps its Lua scripts. */
    public static final String SCRIPTS = "dev/distlock/redis/script/*.lua";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(SCRIPTS);
        hints.resources().registerPattern("META-INF/spring-configuration-metadata.json");
        hints.resources().registerPattern("META-INF/additional-spring-configuration-metadata.json");
        BindableRuntimeHintsRegistrar.forTypes(DistributedLockProperties.class, DistributedLockSafetyProperties.class,
                DistributedLockWebProperties.class, LockMetricsProperties.class, LockRegistryProperties.class,
                QuorumProperties.class, ShedLockProperties.class).registerHints(hints, classLoader);
        hints.reflection().registerType(LockKeyRoot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(DistributedLock.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(OnNotAcquired.class, MemberCategory.INVOKE_PUBLIC_METHODS);
        hints.reflection().registerType(DistributedLockProperties.NotAcquiredAction.class,
                MemberCategory.INVOKE_PUBLIC_METHODS);
    }
}
