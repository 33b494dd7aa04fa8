package io.loomgmp.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's own checks, which run before anything is built: the up-to-date check of the
 * jars it runs, the JDK it accepts, and the test command's plan for the browser test, as root and
 * as a user who is not.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "the launcher's checks use Linux's tools and users")
class LauncherIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root")).toAbsolutePath().normalize();
    private static final String JAVA_HOME = System.getProperty("java.home");
    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;

    record Run(int exitCode, String stdout, String stderr) {
    }

    private Run bash(Map<String, String> env, String... command) throws Exception {
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().putAll(env);
        Process process = builder.start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail(String.join(" ", command) + " did not finish in 2 minutes\n" + Files.readString(err));
        }
        return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    // ---------------------------------------------------------------- up-to-date check

    @Test
    void aJarIsStaleWhenMissingOrOlderThanAnyOfItsModulesSources() throws Exception {
        Path tree = tmp.resolve("tree");
        Path source = write(tree.resolve("dispatcher/src/main/java/A.java"));
        Path resource = write(tree.resolve("loom-bridge/src/main/resources/b.properties"));
        Path otherModule = write(tree.resolve("benchmarks/src/main/java/C.java"));
        Path test = write(tree.resolve("dispatcher/src/test/java/ATest.java"));
        List<Path> poms = List.of(write(tree.resolve("pom.xml")), write(tree.resolve("dispatcher/pom.xml")),
                write(tree.resolve("loom-bridge/pom.xml")));
        Path jar = tree.resolve("loom-bridge/target/agent.jar");

        assertStale(tree, jar, "loom-bridge/target/agent.jar does not exist");
        Instant now = Instant.now();
        for (Path file : Stream.concat(Stream.of(source, resource, otherModule, test), poms.stream()).toList()) {
            Files.setLastModifiedTime(file, FileTime.from(now.minusSeconds(100)));
        }
        write(jar);
        Files.setLastModifiedTime(jar, FileTime.from(now.minusSeconds(50)));
        assertFresh(tree, jar);

        // Another module's source, or a test, does not make this jar stale.
        Files.setLastModifiedTime(otherModule, FileTime.from(now));
        Files.setLastModifiedTime(test, FileTime.from(now));
        assertFresh(tree, jar);

        Files.setLastModifiedTime(resource, FileTime.from(now));
        assertStale(tree, jar, "loom-bridge/src/main/resources/b.properties is newer than loom-bridge/target/agent.jar");
        Files.setLastModifiedTime(resource, FileTime.from(now.minusSeconds(100)));
        Files.setLastModifiedTime(poms.get(0), FileTime.from(now));
        assertStale(tree, jar, "pom.xml is newer than loom-bridge/target/agent.jar");
        Files.setLastModifiedTime(poms.get(0), FileTime.from(now.minusSeconds(100)));
        Files.setLastModifiedTime(source, FileTime.from(now));
        assertStale(tree, jar, "dispatcher/src/main/java/A.java is newer than loom-bridge/target/agent.jar");
    }

    @Test
    void theLauncherRunsTheJarsThisBuildMadeWithoutRebuildingThem() throws Exception {
        Run run = bash(Map.of(), "bash", ROOT.resolve("loomgmp").toString(), "run", "-version");
        assertEquals(0, run.exitCode(), run.stderr());
        assertFalse(run.stderr().contains("loomgmp: building"), "the jars are newer than their sources:\n" + run.stderr());
        assertTrue(run.stderr().contains("version \"25"), run.stderr());
    }

    private Path write(Path file) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, file.getFileName().toString());
        return file;
    }

    private void assertStale(Path tree, Path jar, String reason) throws Exception {
        Run run = staleReason(tree, jar);
        assertEquals(0, run.exitCode(), "stale: " + run);
        assertEquals(reason, run.stdout().strip());
    }

    private void assertFresh(Path tree, Path jar) throws Exception {
        Run run = staleReason(tree, jar);
        assertEquals(1, run.exitCode(), "up to date: " + run);
        assertEquals("", run.stdout());
    }

    private Run staleReason(Path tree, Path jar) throws Exception {
        return bash(Map.of(), "bash", "-c", ". \"$1\" && loomgmp_stale_reason \"$2\" \"$3\" jfr-events dispatcher loom-bridge",
                "bash", ROOT.resolve(".mvn/up-to-date.sh").toString(), tree.toString(), jar.toString());
    }

    // ---------------------------------------------------------------- the JDK

    @Test
    void aNewerJdkIsNotTakenAndSaysWhy() throws Exception {
        Path fake = fakeJdk(26);
        Run run = bash(Map.of("JAVA_HOME", fake.toString()), "bash", "-c",
                ". \"$1\" && echo \"$JAVA_HOME\"", "bash", ROOT.resolve(".mvn/find-jdk25.sh").toString());
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("JAVA_HOME=" + fake + " is not taken: JDK 26, newer than the JDK 25 loom-gmp supports"),
                run.stderr());
        String found = run.stdout().strip();
        assertFalse(found.equals(fake.toString()), "took the JDK 26");
        assertTrue(Files.isExecutable(Path.of(found, "bin", "java")), "found " + found);
    }

    @Test
    void theLauncherSupportsTheJdksTheAgentSupports() throws Exception {
        Run run = bash(Map.of(), "bash", "-c", ". \"$1\" && echo \"$loomgmp_supported_jdk\"",
                "bash", ROOT.resolve(".mvn/find-jdk25.sh").toString());
        assertEquals(0, run.exitCode(), run.stderr());
        assertEquals(System.getProperty("loomgmp.supported.jdk"), run.stdout().strip(),
                ".mvn/find-jdk25.sh and the parent pom's loomgmp.supported.jdk");
    }

    /** A JDK home whose java says it is {@code feature}: enough for the launcher's look. */
    private Path fakeJdk(int feature) throws IOException {
        Path home = tmp.resolve("jdk-" + feature);
        for (String tool : List.of("java", "javac")) {
            Path file = home.resolve("bin").resolve(tool);
            Files.createDirectories(file.getParent());
            Files.writeString(file, "#!/bin/sh\necho '    java.specification.version = " + feature + "' >&2\n");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return home;
    }

    // ---------------------------------------------------------------- the test command's plan

    @Test
    void withoutABrowserOrTmuxAUserWhoIsNotRootIsToldTheirTestsAreSkipped() throws Exception {
        List<String> command = new ArrayList<>();
        if (isRoot()) {
            // Run as nobody: the path a developer who is not root takes.
            Assumptions.assumeTrue(readableByAll(ROOT), "the checkout is not readable by other users: " + ROOT);
            command.addAll(List.of("setpriv", "--reuid=" + NOBODY, "--regid=" + NOBODY, "--clear-groups", "--"));
        }
        command.addAll(List.of("bash", ROOT.resolve("loomgmp").toString(), "test", "--check"));
        Run run = bash(Map.of("PATH", pathWithoutBrowsers().toString(), "JAVA_HOME", JAVA_HOME, "HOME", tmp.toString()),
                command.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("no Chromium (none on the PATH, LOOMGMP_CHROMIUM unset) and not root, so it cannot be"
                + " installed here: the trace.html browser tests will be SKIPPED"), run.stderr());
        assertTrue(run.stderr().contains("no tmux on the PATH and not root, so it cannot be installed here: the live"
                + " console's terminal test (TopIT) will be SKIPPED"), run.stderr());
        assertTrue(run.stderr().contains("would run: ./mvnw -B verify"), run.stderr());
        assertFalse(run.stderr().contains("-Dloomgmp.chromium"), run.stderr());
    }

    @Test
    void withoutABrowserOrTmuxRootWouldInstallDebiansChromiumAndTmux() throws Exception {
        Assumptions.assumeTrue(isRoot(), "not root: the other test covers this user");
        Path path = pathWithoutBrowsers();
        Assumptions.assumeTrue(Files.isExecutable(path.resolve("apt-get")), "no apt-get on this machine");
        Run run = bash(Map.of("PATH", path.toString(), "JAVA_HOME", JAVA_HOME),
                "bash", ROOT.resolve("loomgmp").toString(), "test", "--check");
        assertEquals(0, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("would install Debian's chromium"), run.stderr());
        assertTrue(run.stderr().contains("would install Debian's tmux for the live console's terminal test"),
                run.stderr());
    }

    @Test
    void aBrowserNamedButMissingIsAnError() throws Exception {
        Run run = bash(Map.of("LOOMGMP_CHROMIUM", tmp.resolve("no-such-browser").toString()),
                "bash", ROOT.resolve("loomgmp").toString(), "test", "--check");
        assertEquals(2, run.exitCode(), run.stderr());
        assertTrue(run.stderr().contains("LOOMGMP_CHROMIUM=" + tmp.resolve("no-such-browser") + " is not an executable"),
                run.stderr());
    }

    private static boolean isRoot() throws Exception {
        Process id = new ProcessBuilder("id", "-u").start();
        return new String(id.getInputStream().readAllBytes()).strip().equals("0");
    }

    /** Whether every directory from / down to {@code dir} lets others in, and the launcher is readable. */
    private static boolean readableByAll(Path dir) throws IOException {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (!PosixFilePermissions.toString(Files.getPosixFilePermissions(p)).endsWith("x")) {
                return false;
            }
        }
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("loomgmp"))).charAt(6) == 'r';
    }

    /** A directory of links to every command in /usr/bin and /bin but the browsers and tmux. */
    private Path pathWithoutBrowsers() throws IOException {
        Path bin = tmp.resolve("bin");
        Files.createDirectories(bin);
        for (Path dir : List.of(tmp, bin)) { // the user who is not root must get in
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        for (String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin")) {
            if (!Files.isDirectory(Path.of(dir))) {
                continue;
            }
            try (Stream<Path> commands = Files.list(Path.of(dir))) {
                for (Path command : commands.toList()) {
                    String name = command.getFileName().toString();
                    if (name.startsWith("chromium") || name.startsWith("google-chrome") || name.equals("tmux")
                            || Files.exists(bin.resolve(name))) {
                        continue;
                    }
                    Files.createSymbolicLink(bin.resolve(name), command);
                }
            }
        }
        return bin;
    }
}
