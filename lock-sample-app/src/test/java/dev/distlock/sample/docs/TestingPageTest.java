package dev.distlock.sample.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * docs/testing.md gives the version of {@code org.signal:embedded-redis} that the build tests with, and lock-bom
 * manages that version, so that an application that imports the BOM gets the binary the recipe was checked with.
 */
class TestingPageTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theEmbeddedRedisVersionIsTheBuildsInTheDocsAndTheBom() throws IOException {
        String built = property(Files.readString(ROOT.resolve("pom.xml")), "embedded-redis.version");
        String bom = Files.readString(ROOT.resolve("lock-bom/pom.xml"));
        assertThat(property(bom, "embedded-redis.version")).as("lock-bom's embedded-redis.version").isEqualTo(built);
        assertThat(bom).containsPattern("<groupId>org\\.signal</groupId>\\s*<artifactId>embedded-redis</artifactId>"
                + "\\s*<version>\\$\\{embedded-redis\\.version}</version>");
        assertThat(Files.readString(ROOT.resolve("docs/testing.md")))
            .containsPattern("<groupId>org\\.signal</groupId>\\s*<artifactId>embedded-redis</artifactId>\\s*<version>"
                    + Pattern.quote(built) + "</version>");
    }

    private static String property(String pom, String name) {
        Matcher value = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(pom);
        assertThat(value.find()).as(name).isTrue();
        return value.group(1).trim();
    }
}
