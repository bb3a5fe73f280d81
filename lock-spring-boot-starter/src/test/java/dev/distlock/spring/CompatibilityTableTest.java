package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.core.SpringVersion;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.lettuce.core.RedisClient;

/**
 * The README's compatibility table claims only what the tests run: this class runs in each Spring Boot line's run of
 * the starter's suite (this module, lock-spring-boot-starter-boot40 and -boot35), finds its own line's column and
 * holds it to the libraries on the class path; and the columns are exactly the Boot versions the build's modules use.
 */
class CompatibilityTableTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final Pattern VERSION = Pattern.compile("\\d+\\.\\d+\\.\\d+");

    private static final Pattern BOOT_PROPERTY = Pattern.compile("<spring-boot\\.version>([^<]+)</spring-boot\\.version>");

    @Test
    void thisRunsColumnNamesTheLibrariesItRunsWith() throws IOException {
        Map<String, List<String>> table = table("Spring");
        int column = table.get("Spring Boot").indexOf(SpringBootVersion.getVersion());
        assertThat(column).as("README's compatibility table has a column for Spring Boot %s, which this run uses",
                SpringBootVersion.getVersion()).isNotNegative();
        assertThat(table.get("Spring Framework").get(column)).isEqualTo(SpringVersion.getVersion());
        assertThat(table.get("Spring Data Redis").get(column))
            .isEqualTo(version(RedisConnectionFactory.class.getPackage().getImplementationVersion()));
        assertThat(table.get("Lettuce").get(column))
            .isEqualTo(version(RedisClient.class.getPackage().getImplementationVersion()));
    }

    @Test
    void theColumnsAreTheBootVersionsTheBuildTests() throws IOException {
        TreeSet<String> built = new TreeSet<>();
        try (Stream<Path> modules = Files.list(ROOT)) { // the root pom's, and each module's of its own
            for (Path pom : Stream.concat(Stream.of(ROOT), modules).map(dir -> dir.resolve("pom.xml"))
                .filter(Files::isRegularFile)
                .toList()) {
                Matcher property = BOOT_PROPERTY.matcher(Files.readString(pom));
                if (property.find()) {
                    built.add(property.group(1));
                }
            }
        }
        assertThat(new TreeSet<>(table("Spring").get("Spring Boot"))).isEqualTo(built);
    }

    @Test
    void javaIsTheReleaseTheBuildCompilesFor() throws IOException {
        Matcher release = Pattern.compile("<maven.compiler.release>(\\d+)</maven.compiler.release>")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
        assertThat(release.find()).isTrue();
        assertThat(table("Spring").get("Java")).allMatch(cell -> cell.equals(release.group(1) + " or later"));
    }

    /** The rows of the README table after {@code <!-- compatibility: name -->}, by their first cell. */
    static Map<String, List<String>> table(String name) throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int start = lines.indexOf("<!-- compatibility: " + name + " -->");
        assertThat(start).as("README.md has the table marked <!-- compatibility: %s -->", name).isNotNegative();
        Map<String, List<String>> rows = new LinkedHashMap<>();
        for (int i = start + 1; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            List<String> cells = new ArrayList<>();
            for (String cell : lines.get(i).substring(1).split("\\|")) {
                cells.add(cell.trim());
            }
            rows.put(cells.remove(0), cells);
        }
        return rows;
    }

    private static String version(String implementationVersion) {
        Matcher matcher = VERSION.matcher(String.valueOf(implementationVersion));
        assertThat(matcher.find()).as("a version in %s", implementationVersion).isTrue();
        return matcher.group();
    }
}
