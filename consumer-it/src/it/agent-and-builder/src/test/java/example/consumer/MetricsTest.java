package example.consumer;

import example.consumer.ForkedJava.Result;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static example.consumer.ForkedJava.java;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * io.loomgmp:metrics as a normal dependency, io.loomgmp:loom-gmp-agent as -javaagent: the
 * application (MetricsApp) binds the scheduler's meters to a SimpleMeterRegistry with the form
 * the docs give, in a JVM of its own started as a user starts it (its run-time class path, no
 * JVM flags but the agent).
 */
class MetricsTest {
    private static final Path AGENT = Path.of(System.getProperty("consumer.agent.jar"));
    private static final int PARALLELISM = 2;

    @Test
    void underTheAgentTheSchedulersMetersAreBoundWithPlausibleValues() throws Exception {
        Result run = java(List.of("-javaagent:" + AGENT + "=parallelism=" + PARALLELISM, "-cp", classPath(),
                MetricsApp.class.getName()));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.err(), "the agent says nothing when all is well: " + run);
        Map<String, String> values = run.values();
        assertTrue(Integer.parseInt(values.get("meters")) > 20, "loomgmp meters: " + run);
        assertEquals("gmp", values.get("name"), run.toString());
        assertEquals(PARALLELISM, Double.parseDouble(values.get("procs")), run.toString());
        assertTrue(Double.parseDouble(values.get("carriers.max")) >= PARALLELISM, run.toString());
        // Each of the application's virtual threads is at least one task, counted before it runs.
        assertTrue(Double.parseDouble(values.get("tasks.run")) >= MetricsApp.THREADS, run.toString());
        // Each one slept once on a P's timer, counted as it fired, before the thread went on.
        assertTrue(Double.parseDouble(values.get("timers.fired")) >= MetricsApp.THREADS, run.toString());
    }

    @Test
    void withoutTheAgentTheSafeFormBindsNothingAndThrowsNothing() throws Exception {
        Result run = java(List.of("-cp", classPath(), MetricsApp.class.getName()));
        assertEquals(0, run.exit(), run.toString());
        assertEquals("", run.err(), run.toString());
        assertEquals("0", run.values().get("meters"), run.toString());
        assertEquals("0", run.values().get("all.meters"), run.toString());
    }

    @Test
    void withoutTheAgentOrElseThrowFails() throws Exception {
        Result run = java(List.of("-cp", classPath(), MetricsApp.class.getName(), "--or-else-throw"));
        assertNotEquals(0, run.exit(), run.toString());
        assertTrue(run.err().contains("java.util.NoSuchElementException"), run.toString());
        assertFalse(run.out().contains("meters="), run.toString());
    }

    /** The application's classes and its run-time dependencies (loom-bridge, metrics, dispatcher, Micrometer). */
    private static String classPath() throws IOException {
        String dependencies = Files.readString(Path.of(System.getProperty("consumer.runtime.classpath"))).strip();
        assertTrue(dependencies.contains("metrics-") && dependencies.contains("micrometer-core-"), dependencies);
        assertFalse(dependencies.contains("loom-gmp-agent"), "the agent is not a class-path dependency: " + dependencies);
        return System.getProperty("consumer.app.classes") + File.pathSeparator + dependencies;
    }
}
