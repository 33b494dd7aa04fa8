package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentRelease;
import io.loomgmp.bridge.probe.CarrierProbe;
import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The agent jar as a user downloads it: its manifest, {@code java -jar} on it, the start-up line
 * behind {@code verbose}, and what it does on a JDK it does not support (a real one, found under
 * /usr/lib/jvm): one warning line and the JVM runs without it, or with {@code strict} a refusal.
 */
class AgentJarIT {
    private static final String VERSION = System.getProperty("loomgmp.version");
    private static final String SUPPORTED = System.getProperty("loomgmp.supported.jdk");
    private static final Path JVM_DIR = Path.of("/usr/lib/jvm");

    @Test
    void theManifestNamesTheVersionAndTheSupportedJdks() throws IOException {
        try (JarFile jar = new JarFile(ForkedJvm.AGENT_JAR.toFile())) {
            Attributes main = jar.getManifest().getMainAttributes();
            assertEquals(VERSION, main.getValue("Implementation-Version"));
            assertEquals("loom-gmp agent", main.getValue("Implementation-Title"));
            assertEquals(SUPPORTED, main.getValue("Loom-Gmp-Supported-JDKs"));
            assertEquals("io.loomgmp.bridge.agent.AgentEntry", main.getValue("Premain-Class"));
            assertEquals("io.loomgmp.bridge.agent.AgentJarMain", main.getValue("Main-Class"));
        }
    }

    @Test
    void javaDashJarPrintsTheVersionHowToAttachAndEverySetting() {
        Forked jvm = Fork.java(List.of("-jar", ForkedJvm.AGENT_JAR.toString())).run();
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("", jvm.stderr(), jvm.toString());
        String out = jvm.stdout();
        assertTrue(out.startsWith("loom-gmp " + VERSION + ": "), out);
        assertTrue(out.contains("Supported JDKs: JDK " + SUPPORTED + ". This JDK: " + System.getProperty("java.version")),
                out);
        assertTrue(out.contains("  java -javaagent:" + ForkedJvm.AGENT_JAR + "[=setting=value,...] -jar app.jar\n"), out);
        for (AgentSetting setting : AgentSetting.values()) {
            Matcher row = Pattern.compile("(?m)^  " + Pattern.quote(setting.argumentForm()) + " +-D"
                    + Pattern.quote(setting.property) + " +default: " + Pattern.quote(setting.defaultValue) + "\n"
                    + " +" + Pattern.quote(setting.accepted)
                    + (setting.changesAtRunTime() ? Pattern.quote("; changes at run time (VirtualThreadSchedulerMXBean.setParallelism)") : "")
                    + "$").matcher(out);
            assertTrue(row.find(), setting + "\n" + out);
        }
    }

    @Test
    void dashDashVersionPrintsTheVersionAndTheSupportedJdksAlone() {
        Forked jvm = Fork.java(List.of("-jar", ForkedJvm.AGENT_JAR.toString(), "--version")).run();
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp " + VERSION + "\nsupported JDKs: " + SUPPORTED + "\n", jvm.stdout());
        Forked wrong = Fork.java(List.of("-jar", ForkedJvm.AGENT_JAR.toString(), "parallelism=2")).run();
        assertEquals(2, wrong.exitCode(), wrong.toString());
        assertTrue(wrong.stderr().startsWith("loom-gmp: the agent jar takes no arguments but --version"), wrong.toString());
    }

    /**
     * {@code java -jar agent.jar run}: the application with the agent, for a user without the
     * checkout; the application's output and exit status are the command's.
     */
    @Test
    void runStartsTheApplicationWithTheAgentAndExitsWithItsStatus() throws IOException {
        Path dir = Files.createTempDirectory("agent-run");
        Path app = Files.writeString(dir.resolve("Exits.java"), """
                public class Exits {
                    public static void main(String[] args) throws Exception {
                        Thread t = Thread.ofVirtual().start(() -> System.out.println("carrier " + Thread.currentThread()));
                        t.join();
                        System.exit(Integer.parseInt(args[0]));
                    }
                }
                """);
        Forked jvm = Fork.java(List.of("-jar", ForkedJvm.AGENT_JAR.toString(), "run", "--agent-args",
                "verbose=true,parallelism=1", "--", app.toString(), "7")).run();
        assertEquals(7, jvm.exitCode(), jvm.toString());
        assertTrue(jvm.stderr().lines().anyMatch(line -> line.startsWith("loom-gmp ") && line.contains(" agent on JDK ")
                && line.contains("parallelism=1,")), jvm.toString());
        assertTrue(jvm.stdout().contains("@gmp-M"), "the virtual thread ran on a GMP carrier: " + jvm);
    }

    @Test
    void runWithoutJavaArgumentsOrWithABadSettingIsAUsageError() {
        for (List<String> args : List.of(List.of("run"), List.of("run", "--agent-args", "-jar", "app.jar"))) {
            List<String> command = new java.util.ArrayList<>(List.of("-jar", ForkedJvm.AGENT_JAR.toString()));
            command.addAll(args);
            Forked jvm = Fork.java(command).run();
            assertEquals(2, jvm.exitCode(), jvm.toString());
            assertTrue(jvm.stderr().startsWith("loom-gmp: "), jvm.toString());
            assertTrue(jvm.stderr().contains("usage: java -jar " + ForkedJvm.AGENT_JAR + " run "), jvm.toString());
        }
        Forked help = Fork.java(List.of("-jar", ForkedJvm.AGENT_JAR.toString(), "run", "--help")).run();
        assertEquals(0, help.exitCode(), help.toString());
        assertTrue(help.stdout().startsWith("usage: java -jar " + ForkedJvm.AGENT_JAR + " run "), help.toString());
    }

    @Test
    void verbosePrintsOneStartUpLineWithTheVersionAndTheSettingsInForce() {
        for (Forked jvm : List.of(
                ForkedJvm.withAgent("verbose=true,parallelism=2", List.of(), CarrierProbe.class),
                ForkedJvm.withAgent("parallelism=2", List.of("-Dgmp.verbose=true"), CarrierProbe.class))) {
            assertEquals(0, jvm.exitCode(), jvm.toString());
            assertEquals("loom-gmp " + VERSION + " agent on JDK " + Runtime.version() + " ("
                    + System.getProperty("java.vm.vendor") + "): parallelism=2,maxPoolSize=256,timeslice=10ms,"
                    + "keepalive=30s,schedtrace=0,latency.sample=8,preempt=true,preempt.include=,preempt.exclude=,"
                    + "mxbean=true,timers=true,verbose=true,strict=false\n", jvm.stderr(), jvm.toString());
            assertTrue(jvm.value("ofVirtual").startsWith("gmp-M"), jvm.toString());
        }
    }

    @Test
    void withoutVerboseTheAgentPrintsNothing() {
        for (Forked jvm : List.of(ForkedJvm.withAgent(null, List.of(), CarrierProbe.class),
                ForkedJvm.withAgent("verbose=false", List.of(), CarrierProbe.class))) {
            assertEquals(0, jvm.exitCode(), jvm.toString());
            assertEquals("", jvm.stderr(), jvm.toString());
        }
    }

    @Test
    void onAnUnsupportedJdkTheAgentWarnsInOneLineAndTheJvmRunsWithoutIt() throws IOException {
        Path oldJdk = unsupportedJdk();
        Forked jvm = Fork.java(oldJdk, List.of("-javaagent:" + ForkedJvm.AGENT_JAR + "=parallelism=2", "-version")).run();
        assertEquals(0, jvm.exitCode(), jvm.toString());
        String[] lines = jvm.stderr().split("\n", 2);
        assertEquals(2, lines.length, "the warning, then java -version's lines\n" + jvm);
        assertTrue(lines[0].matches("loom-gmp: warning: unsupported JDK " + oldJdkNamed(oldJdk) + ": the loom-gmp "
                + Pattern.quote(VERSION + " agent supports JDK " + SUPPORTED + ". The JVM runs without loom-gmp: virtual"
                + " threads run on the JDK's default scheduler. strict=true (-Dgmp.strict=true) makes the agent refuse to"
                + " start instead.")), jvm.toString());
        assertTrue(lines[1].matches("(?s)(openjdk|java) version \"(1\\.)?" + feature(oldJdk) + "[^\n]*\n.*"),
                "then the JVM ran: java -version printed the rest\n" + jvm);
        assertFalse(lines[1].contains("loom-gmp"), jvm.toString());
    }

    @Test
    void withStrictOnAnUnsupportedJdkTheAgentRefusesInOneLineNamingTheJdkAndTheWaysOut() throws IOException {
        Path oldJdk = unsupportedJdk();
        for (List<String> strict : List.of(List.of("-javaagent:" + ForkedJvm.AGENT_JAR + "=parallelism=2,strict=true", "-version"),
                List.of("-Dgmp.strict=true", "-javaagent:" + ForkedJvm.AGENT_JAR, "-version"))) {
            Forked jvm = Fork.java(oldJdk, strict).run();
            assertEquals(1, jvm.exitCode(), jvm.toString());
            assertTrue(jvm.stderr().matches("loom-gmp: unsupported JDK " + oldJdkNamed(oldJdk) + ": the loom-gmp "
                    + Pattern.quote(VERSION + " agent supports JDK " + SUPPORTED + ". The JVM does not start, as strict=true"
                    + " asks. To run without loom-gmp, set strict=false (the agent then warns and steps aside) or remove the"
                    + " option -javaagent:" + ForkedJvm.AGENT_JAR + " (and its arguments): virtual threads then run on the"
                    + " JDK's default scheduler.") + "\n"), "the refusal and nothing else (no version, no stack trace)\n" + jvm);
        }
    }

    @Test
    void onAnUnsupportedJdkABadStrictValueIsRefused() throws IOException {
        Forked jvm = Fork.java(unsupportedJdk(),
                List.of("-javaagent:" + ForkedJvm.AGENT_JAR + "=strict=maybe", "-version")).run();
        assertEquals(1, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp: bad value \"maybe\" for agent argument strict: expected true or false\n", jvm.stderr());
    }

    /** How the lines name {@code oldJdk}, as a regular expression: its version, vendor and home. */
    private static String oldJdkNamed(Path oldJdk) {
        return Pattern.quote(String.valueOf(feature(oldJdk))) + "[^ ]* \\(.+, java\\.home " + Pattern.quote(oldJdk.toString())
                + "\\)";
    }

    @Test
    void onAnUnsupportedOlderJdkJavaDashJarSaysWhichJdkItNeeds() throws IOException {
        Path oldJdk = unsupportedJdk();
        Forked jvm = Fork.java(oldJdk, List.of("-jar", ForkedJvm.AGENT_JAR.toString())).run();
        assertEquals(1, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp " + VERSION + " agent: supports JDK " + SUPPORTED + ".\nThis JDK is ", jvm.stdout()
                .substring(0, Math.min(jvm.stdout().length(), ("loom-gmp " + VERSION + " agent: supports JDK " + SUPPORTED
                        + ".\nThis JDK is ").length())), jvm.toString());
        assertTrue(jvm.stdout().contains("java.home " + oldJdk + "): run this with JDK " + SUPPORTED
                + " to see the agent's settings."), jvm.toString());
    }

    @Test
    void theLauncherNamesTheVersionTheAgentJarTheSupportedJdksAndTheJdkFound() throws IOException {
        Path root = Path.of(System.getProperty("loomgmp.root")).toRealPath();
        for (String command : List.of("version", "--version")) {
            // The launcher finds the JDK itself: JAVA_HOME (this JVM's) comes first.
            Forked run = Fork.command(List.of("bash", root.resolve("loomgmp").toString(), command))
                    .environment("JAVA_HOME", System.getProperty("java.home")).run();
            assertEquals(0, run.exitCode(), run.toString());
            String[] lines = run.stdout().split("\n");
            assertEquals(4, lines.length, run.toString());
            assertEquals("loom-gmp " + VERSION, lines[0]);
            assertEquals("supported JDKs: " + SUPPORTED, lines[1]);
            assertEquals("agent jar: " + root.resolve("loom-bridge/target/loom-gmp-agent.jar"), lines[2]);
            // JDK found: openjdk version "25.0.3" 2026-04-21 LTS at /usr/lib/jvm/temurin-25-jdk-amd64
            assertTrue(lines[3].startsWith("JDK found: ") && lines[3].contains(" version \"" + System.getProperty("java.version") + "\"")
                    && lines[3].endsWith(" at " + System.getProperty("java.home")), run.toString());
        }
    }

    /**
     * A JDK older than every supported one under /usr/lib/jvm (the machine's default java 17),
     * by the JAVA_VERSION of its {@code release} file; the test is skipped, saying why, if none.
     */
    private static Path unsupportedJdk() throws IOException {
        int oldestSupported = AgentRelease.parse(VERSION, SUPPORTED).supportedJdks().get(0);
        Optional<Path> found = Optional.empty();
        if (Files.isDirectory(JVM_DIR)) {
            try (Stream<Path> homes = Files.list(JVM_DIR)) {
                // Real paths: the JVM reports its java.home without the symbolic links.
                found = homes.map(AgentJarIT::realPath).distinct().sorted()
                        .filter(home -> Files.isExecutable(home.resolve("bin/java")))
                        .filter(home -> feature(home) > 0 && feature(home) < oldestSupported).findFirst();
            }
        }
        assumeTrue(found.isPresent(), "no JDK older than " + oldestSupported + " under " + JVM_DIR
                + ": the refusal on a real unsupported JDK is not tested here");
        return found.get();
    }

    private static Path realPath(Path path) {
        try {
            return path.toRealPath();
        } catch (IOException e) {
            return path; // a dangling link: not a JDK home, filtered out next
        }
    }

    /** The feature release in {@code <home>/release} (JAVA_VERSION="17.0.13" or "1.8.0_422"), or 0. */
    private static int feature(Path home) {
        try {
            for (String line : Files.readAllLines(home.resolve("release"))) {
                Matcher m = Pattern.compile("JAVA_VERSION=\"(?:1\\.)?(\\d+).*\"").matcher(line);
                if (m.matches()) {
                    return Integer.parseInt(m.group(1));
                }
            }
        } catch (IOException noReleaseFile) {
            return 0; // not a JDK home
        }
        return 0;
    }
}
