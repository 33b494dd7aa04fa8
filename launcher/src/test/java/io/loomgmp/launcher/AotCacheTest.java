package io.loomgmp.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an AOT cache was trained from, and the first difference a later run is told about. */
class AotCacheTest {
    @TempDir
    Path dir;

    @Test
    void theInputsFingerprintTheJdkTheAgentAndEveryClassPathEntryByContents() throws Exception {
        Path agent = Files.writeString(dir.resolve("agent.jar"), "agent");
        Files.writeString(dir.resolve("app.jar"), "one");
        Files.createDirectories(dir.resolve("classes/p"));
        Files.writeString(dir.resolve("classes/p/A.class"), "A");
        JavaCommandLine java = JavaCommandLine.parse(List.of("-cp", "app.jar:classes:gone.jar", "--add-modules", "m", "Main"),
                null, null, dir);
        List<String> before = AotCache.inputs(agent, java, dir);
        assertTrue(before.getFirst().startsWith("JDK: " + System.getProperty("java.home")), before.getFirst());
        assertEquals(6, before.size(), before.toString());
        assertTrue(before.get(4).equals("class path entry gone.jar: missing"), before.toString());
        assertNull(AotCache.change(before, AotCache.inputs(agent, java, dir)));

        Files.writeString(dir.resolve("classes/p/A.class"), "A2");
        String change = AotCache.change(before, AotCache.inputs(agent, java, dir));
        assertTrue(change.startsWith("the class path entry classes changed since it was trained (was 'directory "), change);
    }

    @Test
    void anInputMissingOnEitherSideIsNamed() {
        List<String> trained = List.of("JDK: /jdk 25", "class path entry a.jar: 1");
        assertEquals("it was trained with the class path entry a.jar, which this run does not have",
                AotCache.change(trained, List.of("JDK: /jdk 25")));
        assertEquals("this run has the java option, which it was not trained with",
                AotCache.change(List.of("JDK: /jdk 25"), List.of("JDK: /jdk 25", "java option: --add-modules m")));
    }
}
