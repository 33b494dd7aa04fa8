package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.probe.WhichSchedulerProbe;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The agent beside a dispatcher jar of another version on the application's class path, whose
 * classes load before the agent's own copies (the JVM appends the agent jar to the class path):
 * one warning line and the JVM runs without loom-gmp; with {@code strict=true} it does not start.
 * The control, the same jar saying the agent's version, runs on GMP, so the check is not passed
 * for want of looking.
 */
class AgentVersionSkewIT {
    private static final String VERSION = System.getProperty("loomgmp.version");

    @TempDir
    Path tmp;

    /** The dispatcher's classes, as the build made them, in a loom-gmp jar whose manifest says {@code version}. */
    private Path dispatcherJar(String version) throws IOException, URISyntaxException {
        return dispatcherJar("loom-gmp dispatcher", version);
    }

    /** The dispatcher's classes in a jar whose manifest names {@code title} and {@code version}. */
    private Path dispatcherJar(String title, String version) throws IOException, URISyntaxException {
        Path built = Path.of(GmpScheduler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_TITLE, title);
        manifest.getMainAttributes().put(Attributes.Name.IMPLEMENTATION_VERSION, version);
        Path jar = tmp.resolve(title.replace(' ', '-') + "-" + version + ".jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file, manifest)) {
            int classes = 0;
            if (Files.isDirectory(built)) { // the reactor's target/classes
                try (Stream<Path> files = Files.walk(built)) {
                    for (Path entry : files.filter(Files::isRegularFile).sorted().toList()) {
                        classes += copy(out, built.relativize(entry).toString().replace(File.separatorChar, '/'),
                                Files.readAllBytes(entry));
                    }
                }
            } else { // the module's jar
                try (JarFile in = new JarFile(built.toFile())) {
                    for (JarEntry entry : in.stream().filter(e -> !e.isDirectory()).toList()) {
                        try (InputStream bytes = in.getInputStream(entry)) {
                            classes += copy(out, entry.getName(), bytes.readAllBytes());
                        }
                    }
                }
            }
            assertTrue(classes > 20, "only " + classes + " classes copied from " + built);
        }
        return jar;
    }

    /** Copies one entry, but not a manifest; returns 1 for a class file. */
    private static int copy(JarOutputStream out, String name, byte[] bytes) throws IOException {
        if (name.equals("META-INF/MANIFEST.MF")) {
            return 0;
        }
        out.putNextEntry(new JarEntry(name));
        out.write(bytes);
        out.closeEntry();
        return name.endsWith(".class") ? 1 : 0;
    }

    private static Forked probe(Path dispatcherJar, String agentArguments) {
        List<String> command = new ArrayList<>();
        command.add("-javaagent:" + ForkedJvm.AGENT_JAR + (agentArguments == null ? "" : "=" + agentArguments));
        command.add("-cp");
        command.add(dispatcherJar + File.pathSeparator + ForkedJvm.TEST_CLASSES);
        command.add(WhichSchedulerProbe.class.getName());
        return Fork.java(command).run();
    }

    private static String problem(Path jar) {
        return "version skew: the class path holds io.loomgmp.dispatcher 0.0.1-other (from " + jar
                + "), which loads before the loom-gmp " + VERSION + " agent's own classes.";
    }

    @Test
    void byDefaultOneWarningLineAndTheJvmRunsWithoutLoomGmp() throws Exception {
        Path jar = dispatcherJar("0.0.1-other");
        Forked jvm = probe(jar, null);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp: warning: " + problem(jar) + " The JVM runs without loom-gmp: virtual threads run on the"
                + " JDK's default scheduler. Keep every io.loomgmp artifact at the agent's version; strict=true"
                + " (-Dgmp.strict=true) makes the agent refuse to start instead.\n", jvm.stderr(), jvm.toString());
        assertTrue(jvm.value("carrier").startsWith("ForkJoinPool-"), jvm.toString());
        assertEquals("empty", jvm.value("gmpScheduler"), jvm.toString());
    }

    @Test
    void withStrictTheJvmDoesNotStart() throws Exception {
        Path jar = dispatcherJar("0.0.1-other");
        Forked jvm = probe(jar, "strict=true");
        assertEquals(1, jvm.exitCode(), jvm.toString());
        assertEquals("loom-gmp: " + problem(jar) + " The JVM does not start, as strict=true asks. Keep every io.loomgmp"
                + " artifact at the agent's version, or set strict=false (the agent then warns and steps aside).\n",
                jvm.stderr(), jvm.toString());
        assertEquals("", jvm.stdout(), "the application never started");
    }

    @Test
    void theControlTheSameJarAtTheAgentsVersionRunsOnGmp() throws Exception {
        assertRunsOnGmp(probe(dispatcherJar(VERSION), null));
    }

    /** An application's uber-jar that took in the dispatcher: its manifest speaks of the application. */
    @Test
    void anApplicationsOwnJarOfAnotherVersionIsNotTakenForLoomGmps() throws Exception {
        assertRunsOnGmp(probe(dispatcherJar("acme orders service", "9.9.9"), null));
    }

    private static void assertRunsOnGmp(Forked jvm) {
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("", jvm.stderr(), jvm.toString());
        assertTrue(jvm.value("carrier").startsWith("gmp-M"), jvm.toString());
        assertEquals("present", jvm.value("gmpScheduler"), jvm.toString());
    }
}
