package io.loomgmp.demo;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts each workload in a JVM of its own, on one scheduler, with this JVM's class path: a JVM
 * measures one thing on one scheduler, and class initialisers and the JIT start fresh each time.
 * Every run has a bound: a JVM that outlives it is killed and the demo fails.
 */
final class ChildJvm {
    private final Path agent;

    ChildJvm(Path agent) {
        this.agent = agent;
    }

    /**
     * Runs {@code main} with {@code args} on {@code scheduler}; returns its {@code key=value} lines.
     * Its standard error is the demo's (the workloads' progress); other lines of its standard output
     * go there too.
     */
    ChildOutput run(Scheduler scheduler, String what, Class<?> main, List<String> args, Duration bound)
            throws DemoFailure, InterruptedException {
        String title = what + " on " + scheduler.column;
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(scheduler.jvmArgs(agent));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(args);
        System.err.println("loom-gmp demo: " + title);
        Path out = null;
        try {
            out = Files.createTempFile("loomgmp-demo", ".out");
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor();
                throw new DemoFailure(title + " did not finish within " + bound.toSeconds()
                        + " s, so the demo killed it: " + String.join(" ", command));
            }
            Map<String, String> values = values(Files.readAllLines(out));
            if (process.exitValue() != 0) {
                throw new DemoFailure(title + " failed with exit status " + process.exitValue() + ": "
                        + String.join(" ", command));
            }
            return new ChildOutput(title, values);
        } catch (IOException e) {
            throw new DemoFailure(title + ": " + e);
        } finally {
            if (out != null) {
                out.toFile().delete();
            }
        }
    }

    private static Map<String, String> values(List<String> lines) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : lines) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1));
            } else {
                System.err.println(line);
            }
        }
        return values;
    }
}
