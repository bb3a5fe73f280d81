package dev.distlock;

import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * lock-core works as a named module, as applications on the module path run it: its Lua scripts live in a package
 * the descriptor does not open, so they must be read by lock-core itself, not through a class loader lookup that a
 * named module's encapsulation hides them from.
 */
class ModulePathTest {

    /** The jars the descriptor's requirements resolve to, with the Spring jars Spring Data Redis itself needs. */
    private static final List<String> JARS = List.of("spring-", "commons-logging-", "lettuce-core-");

    @Test
    void theScriptsLoadWhenLockCoreIsANamedModule() throws Exception {
        List<Path> modulePath = new ArrayList<>();
        modulePath.add(Path.of(LockService.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path jar = Path.of(entry);
            String name = jar.getFileName().toString();
            if (name.endsWith(".jar") && JARS.stream().anyMatch(name::startsWith)) {
                modulePath.add(jar);
            }
        }
        assertThat(modulePath).hasSizeGreaterThan(JARS.size());
        assertThat(Files.exists(modulePath.get(0).resolve("module-info.class"))).isTrue();

        ModuleLayer boot = ModuleLayer.boot();
        Configuration configuration = boot.configuration().resolve(ModuleFinder.of(modulePath.toArray(Path[]::new)),
                ModuleFinder.of(), Set.of("dev.distlock"));
        ModuleLayer.Controller controller = ModuleLayer.defineModulesWithOneLoader(configuration, List.of(boot),
                ClassLoader.getPlatformClassLoader());
        Module core = controller.layer().findModule("dev.distlock").orElseThrow();
        assertThat(core.isNamed()).isTrue();
        assertThat(core.isExported("dev.distlock.redis.script")).isFalse();
        controller.addExports(core, "dev.distlock.redis.script", getClass().getModule());

        ClassLoader loader = controller.layer().findLoader("dev.distlock");
        Class<?> scripts = loader.loadClass("dev.distlock.redis.script.Scripts");
        assertThat(scripts.getModule()).isSameAs(core);
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(loader); // as in an application started from the module path
        try {
            for (String name : List.of("acquire.lua", "release.lua", "renew.lua")) {
                Object script = scripts.getMethod("load", String.class, Class.class).invoke(null, name, Long.class);
                String text = (String) script.getClass().getMethod("getScriptAsString").invoke(script);
                assertThat(text).as(name).contains("redis.call").doesNotContain("--#include");
            }
        }
        finally {
            thread.setContextClassLoader(previous);
        }
    }
}
