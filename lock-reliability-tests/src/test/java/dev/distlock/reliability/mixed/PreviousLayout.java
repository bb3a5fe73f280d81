package dev.distlock.reliability.mixed;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * The previous layout's lock-core and {@link MixedVersionWorker}, taken from git at the ref that
 * {@code mixed-version/previous-layout.properties} names ({@code tag}, else {@code commit}) and compiled against the
 * test's own dependencies. Any missing piece (git, the repository, the ref, a compile error) fails the test.
 */
final class PreviousLayout {

    static final String PROPERTIES = "mixed-version/previous-layout.properties";

    static final String WORKER_SOURCE = "lock-reliability-tests/src/test/java/dev/distlock/reliability/mixed/"
            + "MixedVersionWorker.java";

    private PreviousLayout() {
    }

    /** The repository's root: the first directory up from {@code start} with a {@code .git} (a worktree's is a file). */
    static Path repositoryRoot(Path start) {
        for (Path dir = start.toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve(".git"))) {
                return dir;
            }
        }
        throw new AssertionError("The mixed-version test needs the git repository to build the previous layout's "
                + "code, but no .git was found above " + start.toAbsolutePath());
    }

    /** The commit named by the tracked properties: the tag where git knows it, else the pinned commit. */
    static String resolve(Path root, Properties ref) throws IOException, InterruptedException {
        String tag = ref.getProperty("tag");
        String commit = ref.getProperty("commit");
        if (tag != null && !tag.isBlank()) {
            Result byTag = git(root, "rev-parse", "--verify", "--quiet", "refs/tags/" + tag + "^{commit}");
            if (byTag.code == 0) {
                return byTag.output.strip();
            }
        }
        if (commit != null && !commit.isBlank()) {
            Result byCommit = git(root, "rev-parse", "--verify", "--quiet", commit + "^{commit}");
            if (byCommit.code == 0) {
                return byCommit.output.strip();
            }
        }
        throw new AssertionError("The previous layout's code is not in this repository: neither tag '" + tag
                + "' nor commit '" + commit + "' (from " + PROPERTIES + ") resolves in " + root
                + ". Fetch the tag (git fetch --tags) or a history that holds the commit; a shallow clone lacks it.");
    }

    static Properties properties() throws IOException {
        Properties properties = new Properties();
        try (InputStream in = PreviousLayout.class.getClassLoader().getResourceAsStream(PROPERTIES)) {
            if (in == null) {
                throw new AssertionError(PROPERTIES + " is missing from the test resources");
            }
            properties.load(in);
        }
        return properties;
    }

    /**
     * Extracts lock-core's main sources and the worker of {@code commit} under {@code work}, compiles them into
     * {@code work/classes} with lock-core's resources beside them, and returns that directory.
     */
    static Path build(Path root, String commit, Path work, List<String> dependencies)
            throws IOException, InterruptedException {
        Path tar = work.resolve("previous.tar");
        Result archive = git(root, "archive", "--format=tar", "-o", tar.toString(), commit, "lock-core/src/main",
                WORKER_SOURCE);
        if (archive.code != 0) {
            throw new AssertionError("git archive of " + commit + " failed: " + archive.output);
        }
        Path sources = Files.createDirectories(work.resolve("src"));
        Result untar = run(work, "tar", "-xf", tar.toString(), "-C", sources.toString());
        if (untar.code != 0) {
            throw new AssertionError("tar failed: " + untar.output);
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java") && !p.endsWith("module-info.java")).toList();
        }
        Path classes = Files.createDirectories(work.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        if (javac == null) {
            throw new AssertionError("The mixed-version test compiles the previous layout's code and needs a JDK, but "
                    + System.getProperty("java.home") + " has no Java compiler");
        }
        StringWriter errors = new StringWriter();
        try (StandardJavaFileManager fileManager = javac.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            List<String> options = List.of("--release", "17", "-proc:none", "-nowarn", "-encoding", "UTF-8",
                    "-classpath", String.join(File.pathSeparator, dependencies), "-d", classes.toString());
            boolean compiled = javac.getTask(errors, fileManager, null, options, null,
                    fileManager.getJavaFileObjectsFromPaths(files)).call();
            if (!compiled) {
                throw new AssertionError("The previous layout's code (" + commit + ") does not compile against "
                        + "today's dependencies:\n" + errors);
            }
        }
        Path resources = sources.resolve("lock-core/src/main/resources");
        if (Files.isDirectory(resources)) {
            try (Stream<Path> walk = Files.walk(resources)) {
                for (Path file : walk.filter(Files::isRegularFile).toList()) {
                    Path target = classes.resolve(resources.relativize(file).toString());
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target);
                }
            }
        }
        try (Stream<Path> walk = Files.walk(classes)) {
            if (walk.noneMatch(p -> p.toString().endsWith(".lua"))) {
                throw new AssertionError("The previous layout's lock-core (" + commit + ") brought no Lua scripts");
            }
        }
        return classes;
    }

    /** The class path entries of this JVM without lock-core and without this module's own test classes. */
    static List<String> dependencies(String classpath) throws IOException {
        List<String> kept = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            Path path = Path.of(entry);
            if (!holds(path, "dev/distlock/LockService.class")
                    && !holds(path, "dev/distlock/reliability/mixed/MixedVersionWorker.class")) {
                kept.add(entry);
            }
        }
        return kept;
    }

    private static boolean holds(Path entry, String name) throws IOException {
        if (Files.isDirectory(entry)) {
            return Files.exists(entry.resolve(name));
        }
        if (!entry.toString().endsWith(".jar") || !Files.isRegularFile(entry)) {
            return false;
        }
        try (JarFile jar = new JarFile(entry.toFile())) {
            return jar.getEntry(name) != null;
        }
    }

    record Result(int code, String output) {
    }

    private static Result git(Path root, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("git", "-C", root.toString()));
        command.addAll(List.of(args));
        try {
            return run(root, command.toArray(new String[0]));
        }
        catch (IOException ex) {
            throw new AssertionError("The mixed-version test needs git to build the previous layout's code: " + ex);
        }
    }

    private static Result run(Path dir, String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not end within 60 s");
        }
        return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
