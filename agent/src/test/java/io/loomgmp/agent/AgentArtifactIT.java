package io.loomgmp.agent;

import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import io.loomgmp.testsupport.Required;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The artifact io.loomgmp:loom-gmp-agent as the build wrote it (target/loom-gmp-agent-<version>.jar
 * and its -sources.jar and -javadoc.jar) against the jar it repackages,
 * loom-bridge/target/loom-gmp-agent.jar.
 */
class AgentArtifactIT {
    private static final Path ARTIFACT = Required.path("loomgmp.agent.artifact");
    private static final Path SOURCES = Required.path("loomgmp.agent.sources");
    private static final Path JAVADOC = Required.path("loomgmp.agent.javadoc");
    private static final Path SHADED = Required.path("loomgmp.agent.jar");
    private static final Path LICENSE = Required.path("loomgmp.license");
    private static final String VERSION = System.getProperty("loomgmp.version");
    /** What the jar plugin adds of its own: the artifact's pom and pom.properties. */
    private static final String OWN_DESCRIPTOR = "META-INF/maven/io.loomgmp/loom-gmp-agent/";

    @Test
    void theArtifactHoldsTheEntriesOfTheAgentJarByteForByte() throws IOException {
        Map<String, Long> artifact = crcs(ARTIFACT);
        Map<String, Long> shaded = crcs(SHADED);
        assertTrue(shaded.containsKey("io/loomgmp/bridge/agent/AgentEntry.class")
                && shaded.containsKey("io/loomgmp/dispatcher/GmpScheduler.class"), "the agent jar itself: " + shaded.keySet());
        Map<String, Long> own = new TreeMap<>(artifact);
        own.keySet().removeIf(name -> !name.startsWith(OWN_DESCRIPTOR));
        artifact.keySet().removeIf(name -> name.startsWith(OWN_DESCRIPTOR));
        shaded.remove(JarFile.MANIFEST_NAME);
        artifact.remove(JarFile.MANIFEST_NAME);
        assertEquals(shaded, artifact, "entries (name -> CRC) of " + ARTIFACT + " and " + SHADED);
        assertEquals(Set.of(OWN_DESCRIPTOR + "pom.xml", OWN_DESCRIPTOR + "pom.properties"), own.keySet());
    }

    @Test
    void theArtifactHasTheAgentJarsManifest() throws IOException {
        Attributes artifact = mainAttributes(ARTIFACT);
        assertEquals("io.loomgmp.bridge.agent.AgentEntry", artifact.getValue("Premain-Class"));
        assertEquals("io.loomgmp.bridge.agent.AgentJarMain", artifact.getValue("Main-Class"));
        assertEquals(VERSION, artifact.getValue("Implementation-Version"));
        assertEquals("true", artifact.getValue("Can-Retransform-Classes"));
        assertTrue(artifact.getValue("Loom-Gmp-Supported-JDKs").matches("\\d+(,\\d+)*"), artifact.entrySet().toString());
        assertEquals(new TreeMap<>(strings(mainAttributes(SHADED))), new TreeMap<>(strings(artifact)),
                "main attributes of " + ARTIFACT + " and " + SHADED);
    }

    @Test
    void theArtifactCarriesTheLicence() throws IOException {
        try (JarFile jar = new JarFile(ARTIFACT.toFile())) {
            JarEntry licence = jar.getJarEntry("META-INF/LICENSE");
            assertTrue(licence != null, ARTIFACT + " has no META-INF/LICENSE");
            try (InputStream in = jar.getInputStream(licence)) {
                assertArrayEquals(Files.readAllBytes(LICENSE), in.readAllBytes(), "META-INF/LICENSE is not " + LICENSE);
            }
        }
    }

    @Test
    void javaDashJarOnTheArtifactPrintsTheAgentsUsage() throws Exception {
        Forked run = Fork.java(List.of("-jar", ARTIFACT.toString())).run();
        assertEquals(0, run.exitCode(), run.toString());
        assertTrue(run.stdout().startsWith("loom-gmp " + VERSION + ": the agent that runs every virtual thread"), run.toString());
        assertTrue(run.stdout().contains("java -javaagent:" + ARTIFACT), run.toString());
    }

    @Test
    void theSourcesJarHoldsTheSourceOfEveryClassInTheArtifact() throws IOException {
        assumeFalse(Boolean.getBoolean("loomgmp.sources.skipped"), "built with -Dmaven.source.skip=true");
        assertTrue(Files.isRegularFile(SOURCES), SOURCES + " was not built");
        assertTrue(names(SOURCES).contains("META-INF/LICENSE"), SOURCES + " has no META-INF/LICENSE");
        Set<String> sources = names(SOURCES).stream().filter(n -> n.endsWith(".java"))
                .map(n -> n.substring(0, n.length() - ".java".length()))
                .filter(n -> !n.endsWith("package-info")).collect(Collectors.toCollection(TreeSet::new));
        Set<String> classes = names(ARTIFACT).stream().filter(n -> n.endsWith(".class") && !n.contains("$"))
                .map(n -> n.substring(0, n.length() - ".class".length()))
                .filter(n -> !n.endsWith("package-info")).collect(Collectors.toCollection(TreeSet::new));
        // One of each module inside: the bridge, the dispatcher, the JFR event types.
        assertTrue(sources.containsAll(List.of("io/loomgmp/bridge/Gmp", "io/loomgmp/dispatcher/GmpScheduler",
                "io/loomgmp/jfr/RunEvent")), sources.toString());
        Set<String> withoutSource = new TreeSet<>(classes);
        withoutSource.removeAll(sources);
        Set<String> withoutClass = new TreeSet<>(sources);
        withoutClass.removeAll(classes);
        assertEquals(Set.of(), withoutSource, "top-level classes of " + ARTIFACT + " without a source in " + SOURCES);
        assertEquals(Set.of(), withoutClass, "sources in " + SOURCES + " without a class in " + ARTIFACT);
    }

    @Test
    void theJavadocJarDocumentsThePublicApiInsideTheAgentAndNothingElse() throws IOException {
        assumeFalse(Boolean.getBoolean("loomgmp.javadoc.skipped"), "built with -Dmaven.javadoc.skip=true");
        assertTrue(Files.isRegularFile(JAVADOC), JAVADOC + " was not built");
        Set<String> pages = names(JAVADOC);
        assertTrue(pages.contains("index.html"), pages.toString());
        // The packages the modules inside export, in one javadoc.
        for (String page : List.of("io/loomgmp/bridge/Gmp.html", "io/loomgmp/bridge/GmpVirtualThreads.html",
                "io/loomgmp/dispatcher/GmpScheduler.html", "io/loomgmp/dispatcher/SchedulerSnapshot.html",
                "io/loomgmp/jfr/RunEvent.html")) {
            assertTrue(pages.contains(page), JAVADOC + " has no " + page + ": " + pages);
        }
        // Not the packages they keep to themselves.
        List<String> internal = pages.stream().filter(p -> p.startsWith("io/loomgmp/bridge/agent/")
                || p.startsWith("io/loomgmp/bridge/runtime/") || p.startsWith("io/loomgmp/bridge/classfile/") || p.startsWith("io/loomgmp/dispatcher/loom/")).toList();
        assertEquals(List.of(), internal, "pages of packages the modules do not export");
    }

    /** The file entries of {@code jar}, by name, with their CRC-32. */
    private static Map<String, Long> crcs(Path jar) throws IOException {
        assertTrue(Files.isRegularFile(jar), jar + " does not exist");
        Map<String, Long> entries = new TreeMap<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            file.stream().filter(e -> !e.isDirectory()).forEach(e -> entries.put(e.getName(), e.getCrc()));
        }
        return entries;
    }

    private static Set<String> names(Path jar) throws IOException {
        return crcs(jar).keySet();
    }

    private static Attributes mainAttributes(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            assertTrue(manifest != null, jar + " has no manifest");
            return manifest.getMainAttributes();
        }
    }

    private static Map<String, String> strings(Attributes attributes) {
        Map<String, String> map = new TreeMap<>();
        attributes.forEach((k, v) -> map.put(k.toString(), v.toString()));
        return map;
    }
}
