package example.consumer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** io.loomgmp:loom-bridge:jar:agent from the local repository, as -javaagent of an unchanged application. */
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

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private static Result java(List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(arguments);
        Path out = Files.createTempFile("consumer", ".out");
        Path err = Files.createTempFile("consumer", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            // Options from the environment would change the child JVM and print a line on stderr.
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            Process process = builder.start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("did not finish within 120 s: " + command);
            }
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
