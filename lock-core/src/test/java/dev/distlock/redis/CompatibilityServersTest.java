package dev.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import dev.distlock.test.RedisServers;

/**
 * The README's server table claims only what the tests run: each run of lock-core's suite (the embedded Redis, and
 * the build's run on Valkey) finds its server and version there, and each server the table lists is one a run of
 * lock-core/pom.xml starts.
 */
class CompatibilityServersTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void thisRunsServerIsListedWithItsVersion() throws IOException {
        String server;
        try {
            server = RedisServers.server(); // e.g. "Valkey 8.0.1"
        }
        catch (IllegalStateException ex) {
            Assumptions.abort("no server for this run: " + ex.getMessage());
            return;
        }
        assertThat(servers()).contains(server);
    }

    @Test
    void everyListedServerHasARunOfItsOwn() throws IOException {
        String pom = Files.readString(ROOT.resolve("lock-core/pom.xml"));
        for (String server : servers()) {
            String[] nameAndVersion = server.split(" ");
            if (server.equals("Redis 7.0.15")) {
                continue; // the embedded binary, the default execution's
            }
            String minor = nameAndVersion[1].substring(0, nameAndVersion[1].lastIndexOf('.'));
            assertThat(pom).as("lock-core/pom.xml runs the suite on %s", server)
                .contains("<id>" + nameAndVersion[0].toLowerCase() + "-" + minor + "</id>");
        }
    }

    /** "Name version" of each row of the README's table marked {@code <!-- compatibility: servers -->}. */
    private static List<String> servers() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int start = lines.indexOf("<!-- compatibility: servers -->");
        assertThat(start).as("README.md has the server table").isNotNegative();
        List<String> servers = new ArrayList<>();
        for (int i = start + 3; i < lines.size() && lines.get(i).startsWith("|"); i++) { // past the header rows
            String[] cells = lines.get(i).split("\\|");
            servers.add(cells[1].trim() + " " + cells[2].trim());
        }
        return servers;
    }
}
