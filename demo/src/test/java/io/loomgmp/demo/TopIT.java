package io.loomgmp.demo;

import example.probes.TopWorkload;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code loomgmp top} against real JVMs, as a user runs it: a JVM under the agent running
 * {@link TopWorkload} (two CPU-bound virtual threads and eight that sleep, on two Ps), watched in a
 * real terminal (a tmux pane of 120 by 40) through {@code ./loomgmp top}, keys sent with
 * {@code send-keys} and the screen read with {@code capture-pane}; and, without a terminal, the
 * jar's {@code --once} and {@code --frames}, a JVM without the agent, and a JVM that exits under
 * the console.
 *
 * <p>The terminal test needs tmux: without it that test is skipped, with one line saying so
 * ({@code ./loomgmp test} installs Debian's tmux when run as root). Bounds are generous (a loaded
 * 2-core machine attaches in seconds, and its JFR starts in one or two more); nothing is timed
 * tightly.
 */
class TopIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root")).toAbsolutePath().normalize();
    private static final Path AGENT = ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar");
    private static final Path TRACE_JAR = ROOT.resolve("trace-viewer/target/loom-gmp-trace.jar");
    private static final Duration BOUND = Duration.ofSeconds(120);
    private static final Pattern TASKS_RATE = Pattern.compile("Rates/s +tasks ([0-9,.]+) ");
    private static final Pattern CARRIERS = Pattern.compile(
            "Carriers +\\d+ of \\d+: \\d+ running, \\d+ spinning, \\d+ idle, \\d+ blocked");

    /** A JVM running {@link TopWorkload}; closing it asks it to stop, then ends it. */
    private record Workload(Process process, long pid, Path log) implements AutoCloseable {
        static Workload start(boolean agent) throws Exception {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            if (agent) {
                assertTrue(Files.isRegularFile(AGENT), "no agent jar at " + AGENT);
                command.add("-javaagent:" + AGENT);
            }
            command.addAll(List.of("-Djdk.virtualThreadScheduler.parallelism=2", "-cp",
                    System.getProperty("java.class.path"), TopWorkload.class.getName(), "2", "8", "600"));
            Path log = Files.createTempFile("top-workload", ".log");
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            String ready = awaitFile(log, text -> text.contains("ready pid="), "the workload to start", process);
            Matcher pid = Pattern.compile("ready pid=(\\d+)").matcher(ready);
            assertTrue(pid.find(), ready);
            return new Workload(process, Long.parseLong(pid.group(1)), log);
        }

        /** Asks the workload to end (a line "stop"), as if it finished its work. */
        void stop() throws IOException {
            OutputStream in = process.getOutputStream();
            in.write("stop\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }

        @Override
        public void close() throws IOException {
            try {
                stop();
            } catch (IOException alreadyGone) {
                // It exited: its standard input is closed.
            }
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            Files.deleteIfExists(log);
        }
    }

    private record Result(int status, String out, String err) {
    }

    @Test
    void inATerminalItShowsThePsTheRatesAndTheCarriersTracesOnTAndQuitsOnQ() throws Exception {
        Assumptions.assumeTrue(tmuxInstalled(), "SKIPPED: tmux is not installed, and the live console's terminal"
                + " test runs it in a tmux pane (as root: apt-get install -y tmux; ./loomgmp test does this when"
                + " run as root)");
        String socket = "loomgmp-top-it-" + ProcessHandle.current().pid();
        try (Workload workload = Workload.start(true)) {
            // The pane keeps the console's exit status on screen once it has quit.
            String shell = "bash " + ROOT.resolve("loomgmp") + " top " + workload.pid() + "; echo TOP-EXIT=$?; sleep 600";
            tmux(socket, "new-session", "-d", "-x", "120", "-y", "40", "-s", "top", shell);
            String screen = awaitScreen(socket, s -> tasksPerSecond(s) > 0 && s.contains("  VT "),
                    "a frame with rates and a running virtual thread");
            assertTrue(screen.startsWith("loomgmp top  pid " + workload.pid() + "  scheduler gmp  up "), screen);
            assertTrue(screen.contains("\nSCHED "), "the schedtrace line\n" + screen);
            assertTrue(Pattern.compile("(?m)^  P  STATE +QUEUE +NEXT +TIMERS +TASKS/S +FOR +RUNNING$").matcher(screen).find(),
                    "the P table's header\n" + screen);
            for (int p = 0; p < 2; p++) {
                assertTrue(Pattern.compile("(?m)^ +" + p + "  (running|scheduling|idle) ").matcher(screen).find(),
                        "a row for P" + p + "\n" + screen);
            }
            assertTrue(CARRIERS.matcher(screen).find(), "the carriers line\n" + screen);
            assertTrue(screen.contains("q quit  t trace 5s"), "the keys\n" + screen);

            tmux(socket, "send-keys", "-t", "top", "t");
            screen = awaitScreen(socket, s -> s.contains("WAITED LONGEST") || s.contains("Trace     no trace")
                    || s.contains("Trace     the trace failed"), "the trace's lists");
            assertTrue(Pattern.compile("(?m)^Trace     5\\.00s ended \\d\\d:\\d\\d:\\d\\d: [0-9,]+ runs of \\d+ virtual threads")
                    .matcher(screen).find(), "the trace's summary\n" + screen);
            assertTrue(Pattern.compile("RAN LONGEST[^\\n]*\\n  VT \\d+ cpu-\\d").matcher(screen).find(),
                    "a CPU-bound thread ran longest, named from the P rows\n" + screen);
            assertTrue(Pattern.compile("WAITED LONGEST[^\\n]*\\n  VT \\d+").matcher(screen).find(),
                    "threads that waited\n" + screen);

            tmux(socket, "send-keys", "-t", "top", "q");
            screen = awaitScreen(socket, s -> s.contains("TOP-EXIT="), "the console to quit");
            assertTrue(screen.contains("TOP-EXIT=0"), screen);
            assertFalse(screen.contains("Rates/s"), "the alternate screen is gone: the shell's screen is back\n" + screen);
            assertTrue(workload.process().isAlive(), "quitting the console leaves the JVM it watched alone");
        } finally {
            new ProcessBuilder("tmux", "-L", socket, "kill-server").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void onceWithoutATerminalPrintsOnePlainFrameWithRates() throws Exception {
        try (Workload workload = Workload.start(true)) {
            Result r = top(workload.pid(), "--once");
            assertEquals(0, r.status(), r.toString());
            assertEquals("", r.err());
            assertFalse(r.out().contains("\033"), "no escape sequence in a plain frame\n" + r.out());
            assertTrue(r.out().startsWith("loomgmp top  pid " + workload.pid() + "  scheduler gmp  up "), r.out());
            assertTrue(tasksPerSecond(r.out()) > 0, r.out());
            assertTrue(CARRIERS.matcher(r.out()).find(), r.out());
            assertTrue(Pattern.compile("(?m)^ +1  (running|scheduling|idle) ").matcher(r.out()).find(), r.out());
            assertFalse(r.out().contains("q quit"), "no keys without interaction\n" + r.out());
        }
    }

    @Test
    void aJvmWithoutTheAgentIsOneLineAndStatusOne() throws Exception {
        try (Workload workload = Workload.start(false)) {
            Result r = top(workload.pid(), "--once");
            assertEquals(1, r.status(), r.toString());
            assertEquals("", r.out());
            assertEquals("loomgmp top: pid " + workload.pid() + " does not run loom-gmp: it has no"
                    + " io.loomgmp:type=Scheduler,* MBean (start it with -javaagent:loom-gmp-agent.jar; an agent given"
                    + " mxbean=false registers none)" + System.lineSeparator(), r.err());
        }
    }

    @Test
    void aJvmThatExitsUnderTheConsoleEndsItWithOneLineAndStatusZero() throws Exception {
        Path out = Files.createTempFile("top", ".out");
        Path err = Files.createTempFile("top", ".err");
        try (Workload workload = Workload.start(true)) {
            Process top = new ProcessBuilder(java(), "-jar", TRACE_JAR.toString(), "top", String.valueOf(workload.pid()),
                    "--frames", "10000", "--interval", "200ms")
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try {
                awaitFile(out, text -> text.contains("Rates/s   tasks"), "the console's first frame", top);
                workload.stop();
                assertTrue(top.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), "the console did not end\n" + Files.readString(err));
                assertEquals(0, top.exitValue(), Files.readString(err));
                assertEquals("loomgmp top: pid " + workload.pid() + " exited" + System.lineSeparator(),
                        Files.readString(err));
            } finally {
                top.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Runs {@code java -jar loom-gmp-trace.jar top PID args} to its end. */
    private static Result top(long pid, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(java(), "-jar", TRACE_JAR.toString(), "top", String.valueOf(pid)));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("top", ".out");
        Path err = Files.createTempFile("top", ".err");
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            if (!process.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail(command + " did not finish within " + BOUND + "\n" + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static double tasksPerSecond(String screen) {
        Matcher m = TASKS_RATE.matcher(screen);
        return m.find() ? Double.parseDouble(m.group(1).replace(",", "")) : -1;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static boolean tmuxInstalled() {
        try {
            Process tmux = new ProcessBuilder("tmux", "-V").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return tmux.waitFor(30, TimeUnit.SECONDS) && tmux.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs {@code tmux -L socket args}; returns its output; fails the test if tmux fails. */
    private static String tmux(String socket, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("tmux", "-L", socket));
        command.addAll(List.of(args));
        Process tmux = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(tmux.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(tmux.waitFor(30, TimeUnit.SECONDS), command + " did not finish");
        assertEquals(0, tmux.exitValue(), command + ": " + output);
        return output;
    }

    /** The pane's screen once {@code ready} holds for it, within {@link #BOUND}; else fails with the last screen. */
    private static String awaitScreen(String socket, Predicate<String> ready, String what) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        String screen = "";
        while (System.nanoTime() - deadline < 0) {
            screen = tmux(socket, "capture-pane", "-p", "-t", "top");
            if (ready.test(screen)) {
                return screen;
            }
            Thread.sleep(250);
        }
        return fail(what + " did not show within " + BOUND + "; the screen:\n" + screen);
    }

    /** The file's text once {@code ready} holds for it, within {@link #BOUND}, while {@code writer} lives. */
    private static String awaitFile(Path file, Predicate<String> ready, String what, Process writer) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        String text = "";
        while (System.nanoTime() - deadline < 0) {
            text = Files.readString(file);
            if (ready.test(text)) {
                return text;
            }
            if (!writer.isAlive()) {
                return fail(what + ": the process ended (status " + writer.exitValue() + ")\n" + text);
            }
            Thread.sleep(100);
        }
        return fail(what + " did not happen within " + BOUND + "\n" + text);
    }
}
