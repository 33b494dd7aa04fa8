package io.loomgmp.agentsit;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * loom-gmp's agent in one JVM with another Java agent, each order, on a Jetty and a Helidon server
 * whose requests run on virtual threads ({@code agentsit.JettyServer}, {@code agentsit.HelidonServer}).
 * Each case starts its own JVM and requires that it serves, that every request ran on a virtual
 * thread mounted on one of GMP's carriers (GMP stayed the scheduler), that loom-gmp printed its
 * start-up line and preemption-poll statistics (polls given, none failed) and nothing else, that
 * no agent or server printed a warning, an error or a stack trace, and that the JVM exits cleanly
 * when asked; with JaCoCo, that the exec file it writes at exit holds the server's class.
 *
 * <p>The cases with loom-gmp alone are the control: a case that fails only with another agent
 * is that agent's interaction with loom-gmp. Each case prints how long its JVM took from start to
 * its first answer (not asserted on, beyond the bound).
 */
class OtherAgentsIT {
    private static final Path LOOM_GMP_AGENT = Path.of(required("loomgmp.agent.jar"));
    private static final Path OTEL_AGENT = Path.of(required("agents.otel.jar"));
    private static final Path JACOCO_AGENT = Path.of(required("agents.jacoco.jar"));

    /** From the JVM's start to its port line; generous, for a loaded 2-core machine with OpenTelemetry attached. */
    private static final Duration START_BOUND = Duration.ofSeconds(120);
    private static final Duration REQUEST_BOUND = Duration.ofSeconds(30);
    private static final Duration EXIT_BOUND = Duration.ofSeconds(60);
    private static final int SEQUENTIAL = 50;
    private static final int CONCURRENT = 32;
    private static final int CLIENT_THREADS = 8;

    /**
     * {@code VirtualThread[#42]/runnable@gmp-M0 spin=... trace=...} (a named one:
     * {@code VirtualThread[#42,name]/...}); the trace is {@code none} if no span is current.
     */
    private static final Pattern ON_GMP = Pattern.compile(
            "VirtualThread\\[#\\d+(,.*)?\\]/runnable@gmp-M\\d+ spin=[0-9a-f]+ trace=(none|[0-9a-f]{32})\n");
    private static final Pattern STARTUP_LINE = Pattern.compile("loom-gmp \\S+ agent on JDK .*");
    private static final Pattern POLL_STATS = Pattern.compile(
            "loom-gmp: preemption polls: (\\d+) classes examined, (\\d+) given polls \\((\\d+) through the ClassFile API\\),"
                    + " (\\d+) failed, .*");
    /**
     * A stack trace's lines, an exception or error named with its message, a log line at a level
     * above INFO, a warning of the JVM's or of SLF4J's.
     */
    private static final Pattern PROBLEM = Pattern.compile(
            "^\\s+at \\S+\\(.*\\)$|^\\s*Caused by: |^Exception in thread |\\b[\\w.$]+(Exception|Error)\\b(:|$)"
                    + "|\\b(WARN|WARNING|ERROR|SEVERE|FATAL)\\b|VM warning:|^SLF4J\\(W\\)");
    /**
     * The OpenTelemetry agent appends its bootstrap classes to the boot class path, and the JVM then
     * says that class data sharing is limited to the boot loader: printed with OpenTelemetry's agent
     * alone too, so not a matter of loom-gmp's (nor of the order).
     */
    private static final String OTEL_CDS_WARNING = "OpenJDK 64-Bit Server VM warning: Sharing is only supported for boot"
            + " loader classes because bootstrap classpath has been appended";

    enum AppServer {
        JETTY("Jetty", "agentsit.JettyServer"),
        HELIDON("Helidon", "agentsit.HelidonServer");

        final String title;
        final String mainClass;

        AppServer(String title, String mainClass) {
            this.title = title;
            this.mainClass = mainClass;
        }
    }

    enum Order { ALONE, OTHER_FIRST, LOOM_GMP_FIRST }

    /**
     * One case: the server, the other agent's options ({@code -javaagent:...} first), the order, and
     * the lines of the other agent's own on standard error that are not problems of loom-gmp's.
     */
    record Combination(AppServer server, String agentName, List<String> otherAgent, Order order, List<String> otherAgentsLines) {
        @Override
        public String toString() {
            return switch (order) {
                case ALONE -> "loom-gmp alone, on " + server.title;
                case OTHER_FIRST -> agentName + " before loom-gmp, on " + server.title;
                case LOOM_GMP_FIRST -> agentName + " after loom-gmp, on " + server.title;
            };
        }

        List<String> jvmOptions(Path workDir) {
            List<String> loomGmp = List.of("-javaagent:" + LOOM_GMP_AGENT + "=verbose=true", "-Dgmp.preempt.stats=true");
            List<String> other = otherAgent.stream().map(o -> o.replace("<work>", workDir.toString())).toList();
            List<String> options = new ArrayList<>();
            switch (order) {
                case ALONE -> options.addAll(loomGmp);
                case OTHER_FIRST -> {
                    options.addAll(other);
                    options.addAll(loomGmp);
                }
                case LOOM_GMP_FIRST -> {
                    options.addAll(loomGmp);
                    options.addAll(other);
                }
            }
            return options;
        }

        /** Whether the OpenTelemetry agent instruments the server: each request then has a span, its own trace. */
        boolean traced() {
            return otherAgent.equals(OPENTELEMETRY);
        }
    }

    private static final List<String> OPENTELEMETRY = List.of("-javaagent:" + OTEL_AGENT,
            "-Dotel.traces.exporter=none", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none");
    private static final List<String> JACOCO = List.of("-javaagent:" + JACOCO_AGENT + "=destfile=<work>/jacoco.exec");
    /**
     * JaCoCo instruments every class that the application's loader loads after its agent started,
     * loom-gmp's own included (the scheduler's code then records coverage as it runs): this is how
     * to leave loom-gmp alone.
     */
    private static final String JACOCO_EXCLUDES_LOOM_GMP = "excludes=io.loomgmp.*";
    private static final List<String> JACOCO_WITHOUT_LOOM_GMP = List.of(
            "-javaagent:" + JACOCO_AGENT + "=destfile=<work>/jacoco.exec," + JACOCO_EXCLUDES_LOOM_GMP);

    static Stream<Combination> alone() {
        return Stream.of(AppServer.values()).map(s -> new Combination(s, "", List.of(), Order.ALONE, List.of()));
    }

    static Stream<Combination> openTelemetry() {
        return withOrders("OpenTelemetry", OPENTELEMETRY, List.of(OTEL_CDS_WARNING));
    }

    static Stream<Combination> jacoco() {
        return Stream.concat(withOrders("JaCoCo", JACOCO, List.of()),
                Stream.of(new Combination(AppServer.JETTY, "JaCoCo (" + JACOCO_EXCLUDES_LOOM_GMP + ")",
                        JACOCO_WITHOUT_LOOM_GMP, Order.OTHER_FIRST, List.of())));
    }

    private static Stream<Combination> withOrders(String name, List<String> agent, List<String> agentsLines) {
        return Stream.of(AppServer.values()).flatMap(s -> Stream.of(
                new Combination(s, name, agent, Order.OTHER_FIRST, agentsLines),
                new Combination(s, name, agent, Order.LOOM_GMP_FIRST, agentsLines)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    @Timeout(300)
    void alone(Combination combination, @TempDir Path workDir) throws Exception {
        serveAndCheck(combination, workDir);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    @Timeout(300)
    void openTelemetry(Combination combination, @TempDir Path workDir) throws Exception {
        String stderr = serveAndCheck(combination, workDir);
        assertTrue(stderr.contains("opentelemetry-javaagent - version: "),
                "the OpenTelemetry agent did not start (no version line)\n" + stderr);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    @Timeout(300)
    void jacoco(Combination combination, @TempDir Path workDir) throws Exception {
        serveAndCheck(combination, workDir);
        Path exec = workDir.resolve("jacoco.exec");
        assertTrue(Files.isRegularFile(exec), "JaCoCo wrote no " + exec + " at exit");
        byte[] data = Files.readAllBytes(exec);
        // An exec file starts with its header block: 0x01, the magic number 0xC0C0.
        assertTrue(data.length > 3 && data[0] == 0x01 && (data[1] & 0xff) == 0xC0 && (data[2] & 0xff) == 0xC0,
                "not a JaCoCo exec file: " + exec + " (" + data.length + " bytes)");
        String serverClass = combination.server().mainClass.replace('.', '/');
        String text = new String(data, StandardCharsets.ISO_8859_1);
        assertTrue(text.contains(serverClass),
                "JaCoCo's exec file has no execution data for " + serverClass + " (" + data.length + " bytes)");
        boolean loomGmpCovered = text.contains("io/loomgmp/");
        System.out.printf("agents-it: %s: jacoco.exec %d bytes, %s loom-gmp's own classes%n", combination, data.length,
                loomGmpCovered ? "with" : "without");
        if (combination.otherAgent().equals(JACOCO_WITHOUT_LOOM_GMP)) {
            assertTrue(!loomGmpCovered, "JaCoCo instrumented loom-gmp's classes despite " + JACOCO_EXCLUDES_LOOM_GMP);
        }
    }

    /**
     * Starts the server's JVM with the case's agents, checks its answers and its exit, and returns
     * its standard error, checked. A failure's message starts with the case's name.
     */
    private static String serveAndCheck(Combination combination, Path workDir) throws Exception {
        try {
            return serveAndCheckUnnamed(combination, workDir);
        } catch (AssertionError e) {
            throw new AssertionError(combination + ": " + e.getMessage(), e);
        }
    }

    private static String serveAndCheckUnnamed(Combination combination, Path workDir) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(combination.jvmOptions(workDir));
        command.add("-cp");
        command.add(serversClasspath());
        command.add(combination.server().mainClass);
        Path stderrFile = workDir.resolve("stderr.txt");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectError(stderrFile.toFile())
                .directory(workDir.toFile());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        builder.environment().remove("JDK_JAVA_OPTIONS");
        builder.environment().remove("_JAVA_OPTIONS");

        List<String> traces = new ArrayList<>();
        long start = System.nanoTime();
        Process process = builder.start();
        StdoutLines stdout = new StdoutLines(process);
        try {
            String portLine = stdout.awaitLineStartingWith("port=", START_BOUND, () -> stderrOf(stderrFile));
            long portMillis = millisSince(start);
            int port = Integer.parseInt(portLine.substring("port=".length()).trim());
            URI base = URI.create("http://127.0.0.1:" + port);
            try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(REQUEST_BOUND).build()) {
                traces.add(checkAnswer(get(client, base.resolve("/first")), stderrFile));
                long firstAnswerMillis = millisSince(start);
                System.out.printf("agents-it: %s: port after %d ms, first answer after %d ms from the JVM's start%n",
                        combination, portMillis, firstAnswerMillis);
                for (int i = 0; i < SEQUENTIAL; i++) {
                    traces.add(checkAnswer(get(client, base.resolve("/sequential/" + i)), stderrFile));
                }
                ExecutorService clients = Executors.newFixedThreadPool(CLIENT_THREADS);
                try {
                    List<Future<HttpResponse<String>>> answers = new ArrayList<>();
                    for (int i = 0; i < CONCURRENT; i++) {
                        URI uri = base.resolve("/concurrent/" + i);
                        answers.add(clients.submit(() -> get(client, uri)));
                    }
                    for (Future<HttpResponse<String>> answer : answers) {
                        traces.add(checkAnswer(answer.get(2 * REQUEST_BOUND.toSeconds(), TimeUnit.SECONDS), stderrFile));
                    }
                } finally {
                    clients.shutdownNow();
                }
            }

            process.getOutputStream().close(); // the server exits with System.exit(0)
            if (!process.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS)) {
                fail("the server did not exit within " + EXIT_BOUND.toSeconds() + " s of its standard input's end\n"
                        + stderrOf(stderrFile));
            }
            assertEquals(0, process.exitValue(), "the server's exit code\n" + stderrOf(stderrFile));
        } finally {
            process.destroyForcibly();
            process.waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        String stderr = Files.readString(stderrFile);
        checkTraces(traces, combination.traced(), stderr);
        checkStderr(stderr, combination.otherAgentsLines());
        stderr.lines().filter(l -> l.startsWith("loom-gmp: preemption polls: "))
                .forEach(l -> System.out.printf("agents-it: %s: %s%n", combination, l));
        return stderr;
    }

    private static HttpResponse<String> get(HttpClient client, URI uri) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(REQUEST_BOUND).GET().build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** Fails unless the answer is 200 from a virtual thread on a GMP carrier; returns its trace. */
    private static String checkAnswer(HttpResponse<String> response, Path stderrFile) {
        Matcher answer = ON_GMP.matcher(response.body());
        if (response.statusCode() != 200 || !answer.matches()) {
            fail(response.uri() + " answered " + response.statusCode() + " \"" + response.body().strip()
                    + "\": expected 200 from a virtual thread on a GMP carrier (VirtualThread[#N]/runnable@gmp-MN)\n"
                    + stderrOf(stderrFile));
        }
        return answer.group(2);
    }

    /**
     * With the OpenTelemetry agent, every request was handled within a span of its own trace (the
     * agent's server instrumentation ran, and its context reached the virtual thread on GMP);
     * without it, within none.
     */
    private static void checkTraces(List<String> traces, boolean traced, String stderr) {
        if (traced) {
            assertEquals(List.of(), traces.stream().filter("none"::equals).toList(),
                    "requests handled outside a span, with the OpenTelemetry agent attached\n" + stderr);
            assertEquals(traces.size(), traces.stream().distinct().count(), "requests sharing a trace: " + traces);
        } else {
            assertEquals(List.of(), traces.stream().filter(t -> !t.equals("none")).toList(),
                    "spans without the OpenTelemetry agent");
        }
    }

    /**
     * loom-gmp's start-up line and poll statistics, and nothing else of loom-gmp's (its warnings
     * and errors all start with "loom-gmp"); no line of any warning, error or stack trace.
     */
    private static void checkStderr(String stderr, List<String> otherAgentsLines) {
        List<String> lines = stderr.lines().toList();
        assertTrue(lines.stream().anyMatch(l -> STARTUP_LINE.matcher(l).matches()),
                "no loom-gmp start-up line (verbose=true)\n" + stderr);
        List<String> stats = lines.stream().filter(l -> l.startsWith("loom-gmp: preemption polls: ")).toList();
        assertEquals(1, stats.size(), "loom-gmp's preemption-poll statistics at exit\n" + stderr);
        Matcher counts = POLL_STATS.matcher(stats.getFirst());
        assertTrue(counts.matches(), "unexpected statistics line: " + stats.getFirst());
        assertTrue(Long.parseLong(counts.group(2)) > 0, "no class was given polls: " + stats.getFirst());
        assertEquals(0, Long.parseLong(counts.group(4)), "classes loom-gmp failed to give polls: " + stats.getFirst());

        List<String> problems = new ArrayList<>();
        for (String line : lines) {
            boolean loomGmpExpected = STARTUP_LINE.matcher(line).matches() || POLL_STATS.matcher(line).matches();
            if (otherAgentsLines.contains(line)) {
                continue;
            }
            if ((line.startsWith("loom-gmp") && !loomGmpExpected) || PROBLEM.matcher(line).find()) {
                problems.add(line);
            }
        }
        assertTrue(problems.isEmpty(), "warnings, errors or stack traces on standard error:\n  "
                + String.join("\n  ", problems) + "\n--- the whole standard error:\n" + stderr);
    }

    private static String serversClasspath() throws IOException {
        String dependencies = Files.readString(Path.of(required("agents.servers.classpath.file"))).strip();
        return required("agents.servers.classpath") + java.io.File.pathSeparator + dependencies;
    }

    private static String stderrOf(Path stderrFile) {
        try {
            return "--- the server's standard error:\n" + Files.readString(stderrFile);
        } catch (IOException e) {
            return "--- the server's standard error is unreadable: " + e;
        }
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set: run through Maven (failsafe)");
        }
        return value;
    }

    /** The server's standard output, line by line, read by a daemon thread. */
    private static final class StdoutLines {
        private static final String END = new String("end of standard output"); // compared by identity
        private final java.util.concurrent.BlockingQueue<String> lines = new java.util.concurrent.LinkedBlockingQueue<>();
        private final StringBuffer all = new StringBuffer();

        StdoutLines(Process process) {
            Thread reader = new Thread(() -> {
                try (var in = process.inputReader(StandardCharsets.UTF_8)) {
                    for (String line; (line = in.readLine()) != null; ) {
                        all.append(line).append('\n');
                        lines.add(line);
                    }
                } catch (IOException e) {
                    all.append("(reading failed: ").append(e).append(")\n");
                } finally {
                    lines.add(END);
                }
            }, "server-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        /** The first line that starts with {@code prefix}, or a failure if none comes within {@code bound}. */
        String awaitLineStartingWith(String prefix, Duration bound, java.util.function.Supplier<String> stderr)
                throws InterruptedException {
            long deadline = System.nanoTime() + bound.toNanos();
            while (true) {
                String line = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line == null) {
                    fail("no line \"" + prefix + "...\" within " + bound.toSeconds() + " s\n--- standard output:\n" + all
                            + stderr.get());
                }
                if (line == END) {
                    fail("the server's standard output ended without a line \"" + prefix + "...\"\n--- standard output:\n"
                            + all + stderr.get());
                }
                if (line.startsWith(prefix)) {
                    return line;
                }
            }
        }
    }
}
