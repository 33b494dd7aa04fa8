package io.loomgmp.demo;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * What a user does: record an application under the agent with the tracing settings, then
 * {@code ./loomgmp trace} the recording. The timeline must hold the scheduler's real runs on
 * both Ps, labelled by virtual thread, with how each run ended.
 */
class TraceEndToEndIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root"));

    @Test
    void aRecordingOfTheDemoUnderTheAgentBecomesAPerPTimeline() throws Exception {
        Path dir = Files.createTempDirectory("trace-e2e");
        Path recording = dir.resolve("rec.jfr");
        Path settings = ROOT.resolve("jfr-events/src/main/resources/io/loomgmp/jfr/loomgmp-trace.jfc");
        run(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-javaagent:" + ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar"),
                "-Djdk.virtualThreadScheduler.parallelism=2",
                "-XX:StartFlightRecording:filename=" + recording + ",settings=" + settings,
                "-cp", System.getProperty("java.class.path"), Workloads.class.getName(), "--small"));
        String converted = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "trace", recording.toString(),
                "-o", dir.resolve("out").toString()));

        String json = Files.readString(dir.resolve("out/trace.json"));
        assertTrue(json.contains("\"args\":{\"name\":\"Proc 0\"}") && json.contains("\"args\":{\"name\":\"Proc 1\"}"),
                "a lane per P");
        Matcher run = Pattern.compile("\\{\"ph\":\"X\",\"name\":\"VT (\\d+)\",\"pid\":2,\"tid\":([01]),[^\\n]*\"end\":\"(\\w+)\"")
                .matcher(json);
        int runs = 0;
        boolean parked = false;
        boolean finished = false;
        boolean[] lanes = new boolean[2];
        while (run.find()) {
            runs++;
            lanes[Integer.parseInt(run.group(2))] = true;
            parked |= run.group(3).equals("parked");
            finished |= run.group(3).equals("finished");
        }
        assertTrue(runs > 1_000, runs + " runs labelled by virtual thread\n" + converted);
        assertTrue(lanes[0] && lanes[1], "runs on both Ps");
        assertTrue(parked && finished, "runs say how they ended (parked, finished)");
        assertTrue(Files.size(dir.resolve("out/trace.html")) > 10_000, "trace.html written");
    }

    /** Runs a command to completion (exit 0 within 2 minutes); returns its output. */
    private static String run(List<String> command) throws Exception {
        Path log = Files.createTempFile("trace-e2e", ".log");
        Process process = new ProcessBuilder(command).directory(ROOT.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("did not finish in 2 minutes: " + command + "\n" + Files.readString(log));
        }
        String output = Files.readString(log);
        Files.delete(log);
        assertEquals(0, process.exitValue(), command + "\n" + output);
        return output;
    }
}
