package example.consumer;

import example.consumer.ForkedJava.Result;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static example.consumer.ForkedJava.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** io.loomgmp:loom-gmp-agent from the local repository (dependency:copy), as -javaagent of an unchanged application. */
class InstalledAgentTest {
    private static final Path AGENT = Path.of(System.getProperty("consumer.agent.jar"));
    private static final String CLASSES = System.getProperty("consumer.app.classes");
    private static final String VERSION = System.getProperty("consumer.loomgmp.version");

    @Test
    void theApplicationsVirtualThreadsRunOnGmpUnderTheInstalledAgent() throws Exception {
        assertTrue(Files.isRegularFile(AGENT), AGENT + " was not copied from the local repository");
        Result run = java(List.of("-javaagent:" + AGENT + "=verbose=true", "-cp", CLASSES, App.class.getName()));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("carrier=", run.out().substring(0, Math.min(8, run.out().length())), run.toString());
        assertTrue(run.out().strip().matches("carrier=gmp-M\\d+"), run.toString());
        assertTrue(run.err().startsWith("loom-gmp " + VERSION + " agent on JDK "), run.toString());
    }

    @Test
    void withoutTheAgentTheSameApplicationRunsOnTheJdksScheduler() throws Exception {
        Result run = java(List.of("-cp", CLASSES, App.class.getName()));
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith("carrier=ForkJoinPool"), "the control: " + run);
    }

    @Test
    void javaDashJarOnTheInstalledAgentPrintsItsVersion() throws Exception {
        Result run = java(List.of("-jar", AGENT.toString(), "--version"));
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.out().startsWith("loom-gmp " + VERSION + "\n"), run.toString());
    }
}
