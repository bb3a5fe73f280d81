package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** The resources the sample reads from the class path are in its native image. */
class SampleRuntimeHintsTest {

    @Test
    void theWikiScriptAndTheRedisServerBinariesAreResources() {
        RuntimeHints hints = new RuntimeHints();
        SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
            .load(RuntimeHintsRegistrar.class)
            .stream()
            .filter(SampleRuntimeHints.class::isInstance)
            .forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));
        assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/sample/wiki/fenced-write.lua"))
            .accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("redis-server-7.0.15-linux-amd64")).accepts(hints);
        assertThat(getClass().getClassLoader().getResource("redis-server-7.0.15-linux-amd64")).isNotNull();
    }
}
