package example.consumer;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * What a user's build finds of io.loomgmp:loom-gmp-agent in a repository (here the isolated local
 * repository consumer-it's invoker:install filled, as it would be on Maven Central): the jar, its
 * -sources.jar and -javadoc.jar, a pom that brings in no dependency, and the licence.
 */
class InstalledArtifactsTest {
    private static final String VERSION = System.getProperty("consumer.loomgmp.version");
    private static final Path REPO = Path.of(System.getProperty("consumer.local.repo"));
    private static final Path AGENT_DIR = REPO.resolve("io/loomgmp/loom-gmp-agent").resolve(VERSION);

    @Test
    void theAgentArtifactIsAJarWithTheAgentsManifestAndTheLicence() throws IOException {
        Path jar = file(AGENT_DIR, "loom-gmp-agent-" + VERSION + ".jar");
        try (JarFile agent = new JarFile(jar.toFile())) {
            assertEquals("io.loomgmp.bridge.agent.AgentEntry", agent.getManifest().getMainAttributes().getValue("Premain-Class"));
            assertTrue(agent.getJarEntry("io/loomgmp/dispatcher/GmpScheduler.class") != null, jar + ": no dispatcher inside");
        }
        assertApacheLicence(jar);
    }

    @Test
    void theAgentArtifactHasItsSourcesJar() throws IOException {
        assumeFalse(Boolean.getBoolean("consumer.sources.skipped"), "built with -Dmaven.source.skip=true");
        Path sources = file(AGENT_DIR, "loom-gmp-agent-" + VERSION + "-sources.jar");
        try (JarFile jar = new JarFile(sources.toFile())) {
            for (String source : List.of("io/loomgmp/bridge/Gmp.java", "io/loomgmp/dispatcher/GmpScheduler.java", "io/loomgmp/jfr/RunEvent.java")) {
                assertTrue(jar.getJarEntry(source) != null, sources + " has no " + source);
            }
        }
    }

    @Test
    void theAgentArtifactHasItsJavadocJar() throws IOException {
        assumeFalse(Boolean.getBoolean("consumer.javadoc.skipped"), "built with -Dmaven.javadoc.skip=true");
        Path javadoc = file(AGENT_DIR, "loom-gmp-agent-" + VERSION + "-javadoc.jar");
        try (JarFile jar = new JarFile(javadoc.toFile())) {
            for (String page : List.of("index.html", "io/loomgmp/bridge/Gmp.html", "io/loomgmp/dispatcher/GmpScheduler.html")) {
                assertTrue(jar.getJarEntry(page) != null, javadoc + " has no " + page);
            }
        }
    }

    @Test
    void theAgentArtifactsPomBringsInNoDependency() throws Exception {
        Document pom = pom(file(AGENT_DIR, "loom-gmp-agent-" + VERSION + ".pom"));
        List<String> pulledIn = new ArrayList<>();
        for (Element dependency : children(child(pom.getDocumentElement(), "dependencies"), "dependency")) {
            String scope = text(dependency, "scope", "compile");
            boolean optional = text(dependency, "optional", "false").equals("true");
            if (!optional && !scope.equals("provided") && !scope.equals("test")) {
                pulledIn.add(text(dependency, "groupId", "") + ":" + text(dependency, "artifactId", "") + " (" + scope + ")");
            }
        }
        assertEquals(List.of(), pulledIn, "dependencies a project that takes io.loomgmp:loom-gmp-agent would pull in");
    }

    @Test
    void theLibrariesCarryTheLicenceAndThePomsDeclareIt() throws Exception {
        assertApacheLicence(file(REPO.resolve("io/loomgmp/metrics").resolve(VERSION), "metrics-" + VERSION + ".jar"));
        assertApacheLicence(file(REPO.resolve("io/loomgmp/loom-bridge").resolve(VERSION), "loom-bridge-" + VERSION + ".jar"));
        assertApacheLicence(file(REPO.resolve("io/loomgmp/dispatcher").resolve(VERSION), "dispatcher-" + VERSION + ".jar"));
        // The modules inherit <licenses> from the parent pom.
        Document parent = pom(file(REPO.resolve("io/loomgmp/loom-gmp-parent").resolve(VERSION), "loom-gmp-parent-" + VERSION + ".pom"));
        Element licence = child(child(parent.getDocumentElement(), "licenses"), "license");
        assertTrue(licence != null, "the parent pom declares no <licenses><license>");
        assertEquals("Apache-2.0", text(licence, "name", ""));
        assertEquals("https://www.apache.org/licenses/LICENSE-2.0.txt", text(licence, "url", ""));
    }

    private static void assertApacheLicence(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            assertTrue(file.getJarEntry("META-INF/LICENSE") != null, jar + " has no META-INF/LICENSE");
            try (InputStream in = file.getInputStream(file.getJarEntry("META-INF/LICENSE"))) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(text.contains("Apache License") && text.contains("Version 2.0, January 2004")
                        && text.contains("END OF TERMS AND CONDITIONS") && text.contains("APPENDIX: How to apply"),
                        jar + ": META-INF/LICENSE is not the Apache License 2.0");
            }
        }
    }

    private static Path file(Path directory, String name) {
        Path file = directory.resolve(name);
        assertTrue(Files.isRegularFile(file), file + " is not in the local repository");
        return file;
    }

    private static Document pom(Path file) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    private static Element child(Element parent, String name) {
        List<Element> children = children(parent, name);
        return children.isEmpty() ? null : children.getFirst();
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> children = new ArrayList<>();
        if (parent != null) {
            for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element e && e.getTagName().equals(name)) {
                    children.add(e);
                }
            }
        }
        return children;
    }

    private static String text(Element parent, String name, String absent) {
        Element child = child(parent, name);
        return child == null ? absent : child.getTextContent().strip();
    }
}
