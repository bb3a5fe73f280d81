package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.distlock.test.RedisNode;
import dev.distlock.test.RedisTest;

/**
 * A class compiled without {@code -parameters}, as a build that does not use Spring Boot's parent or Gradle plugin
 * compiles it: a key naming a parameter fails startup saying that parameter names are not available and how to make
 * them so; a key naming the argument by position works.
 */
@RedisTest
class MissingParameterNamesTest {

    @Test
    void aKeyNamingAParameterExplainsThatNamesNeedParameters(RedisNode redis, @TempDir Path dir) throws Exception {
        Class<?> stock = compileWithoutParameters(dir, "Stock", "@DistributedLock(key = \"'stock:' + #sku\")");
        LockContexts.runner(redis).withClassLoader(stock.getClassLoader()).withBean(stock).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).hasMessageContaining("Invalid @DistributedLock on Stock.reserve("
                    + "String): key \"'stock:' + #sku\" refers to #sku, but the names of the method's parameters are "
                    + "not available: its class was compiled without -parameters. Compile with -parameters")
                .hasMessageContaining("[#p0]");
        });
    }

    @Test
    void aKeyNamingTheArgumentByPositionWorks(RedisNode redis, @TempDir Path dir) throws Exception {
        Class<?> stock = compileWithoutParameters(dir, "Stock", "@DistributedLock(key = \"'stock:' + #p0\")");
        LockContexts.runner(redis).withClassLoader(stock.getClassLoader()).withBean(stock)
            .run(context -> assertThat(context).hasNotFailed());
    }

    private static Class<?> compileWithoutParameters(Path dir, String name, String annotation) throws IOException,
            ClassNotFoundException {
        Path source = dir.resolve(name + ".java");
        Files.writeString(source, "package inventory;\nimport dev.distlock.spring.DistributedLock;\npublic class "
                + name + " {\n" + "    " + annotation + "\n" + "    public void reserve(String sku) {\n    }\n}\n");
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        String classPath = Paths.get(DistributedLock.class.getProtectionDomain().getCodeSource().getLocation()
            .getPath()).toString();
        int status = compiler.run(null, null, null,
                List.of("-classpath", classPath, "-d", dir.toString(), source.toString()).toArray(String[]::new));
        assertThat(status).as("javac exit status").isZero();
        URLClassLoader loader = new URLClassLoader(new java.net.URL[] { dir.toUri().toURL() },
                MissingParameterNamesTest.class.getClassLoader());
        return loader.loadClass("inventory." + name);
    }
}
