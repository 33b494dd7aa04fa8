package io.loomgmp.benchmarks.runner;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The smoke run of the suite through the launcher, {@code ./loomgmp bench --smoke}: every
 * benchmark runs on both schedulers (one 100 ms iteration, tiny sizes) and the report is written.
 * It checks that each ran on the scheduler it names and that the latency benchmarks recorded
 * latencies; it asserts nothing about speed.
 */
class BenchSmokeIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root")).toAbsolutePath().normalize();
    private static final Path OUT = ROOT.resolve("benchmarks/target/bench");
    private static final Set<String> LATENCY_BENCHMARKS = Set.of("TimersBenchmark.sleepers", "FairnessBenchmark.probe",
            "PinnedBenchmark.shortTasks", "HttpBenchmark.requests", "JettyBenchmark.requests", "TomcatBenchmark.requests");

    private record Run(int exitCode, String stdout, String stderr) {
    }

    private static Run loomgmp(long timeoutMinutes, String... args) throws Exception {
        Path out = Files.createTempFile("bench", ".out");
        Path err = Files.createTempFile("bench", ".err");
        List<String> command = new java.util.ArrayList<>(List.of("bash", ROOT.resolve("loomgmp").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(timeoutMinutes, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("./loomgmp " + String.join(" ", args) + " did not finish in " + timeoutMinutes + " min\n"
                    + Files.readString(out) + Files.readString(err));
        }
        Run run = new Run(process.exitValue(), Files.readString(out), Files.readString(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return run;
    }

    /** Every benchmark of the suite, as JMH lists them. */
    private static Set<String> suite() {
        return entries().map(BenchmarkListEntry::getUsername).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The hand-off benchmarks: those with the jvmtiTransitions parameter, also run with -XX:-DoJVMTIVirtualThreadTransitions. */
    private static Set<String> handOffs() {
        return entries().filter(entry -> entry.getParams().hasValue() && entry.getParams().get().containsKey("jvmtiTransitions"))
                .map(BenchmarkListEntry::getUsername).collect(Collectors.toCollection(TreeSet::new));
    }

    private static java.util.stream.Stream<BenchmarkListEntry> entries() {
        return BenchmarkList.defaultList().find(OutputFormatFactory.createFormatInstance(
                        new PrintStream(PrintStream.nullOutputStream()), VerboseMode.SILENT), List.of(".*"), List.of())
                .stream().filter(entry -> entry.getUsername().startsWith("io.loomgmp.benchmarks."));
    }

    @Test
    void everyBenchmarkRunsOnBothSchedulersAndTheReportIsWritten() throws Exception {
        Files.deleteIfExists(OUT.resolve("jmh-result.json"));
        String tableBefore = Files.readString(ROOT.resolve("docs/performance.md"));
        Run run = loomgmp(5, "bench", "--smoke");
        assertEquals(0, run.exitCode(), run.stdout() + run.stderr());

        Set<String> suite = suite();
        assertTrue(suite.size() >= 10, "the suite: " + suite);
        Set<String> handOffs = handOffs();
        assertTrue(handOffs.size() >= 7, "the hand-off benchmarks: " + handOffs);
        // Each benchmark on both schedulers, and the hand-off ones again without JVMTI's transitions.
        int runs = 2 * (suite.size() + handOffs.size());
        // A benchmark with parameters besides the scheduler (recording=...) prints a line per value.
        Pattern progress = Pattern.compile("^\\[ *(\\d+)/" + runs + "] \\S+( \\S+=\\S+)* +(gmp|fjp) +\\S.*\\((\\d+\\.\\d) s\\)$");
        long runsReported = run.stdout().lines().map(progress::matcher).filter(Matcher::matches)
                .map(m -> m.group(1)).distinct().count();
        assertEquals(runs, runsReported, "progress lines for every benchmark and scheduler:\n" + run.stdout());

        // Keyed by benchmark and its other parameters (JfrCost*: recording=none|always|tracing).
        Map<String, Set<String>> schedulers = new TreeMap<>();
        Set<String> benchmarksRun = new TreeSet<>();
        for (JsonElement element : JsonParser.parseString(Files.readString(OUT.resolve("jmh-result.json"))).getAsJsonArray()) {
            JsonObject result = element.getAsJsonObject();
            String benchmark = result.get("benchmark").getAsString();
            String scheduler = result.getAsJsonObject("params").get("scheduler").getAsString();
            boolean agent = result.get("jvmArgs").toString().contains("-javaagent:");
            assertEquals(scheduler.equals("gmp"), agent, benchmark + " " + scheduler + ": the agent only in gmp forks");
            JsonElement transitions = result.getAsJsonObject("params").get("jvmtiTransitions");
            assertEquals(handOffs.contains(benchmark), transitions != null, benchmark + ": the parameter on hand-offs only");
            boolean fast = result.get("jvmArgs").toString().contains("-XX:-DoJVMTIVirtualThreadTransitions");
            assertEquals(transitions != null && transitions.getAsString().equals("off"), fast,
                    benchmark + " " + result.getAsJsonObject("params") + ": the flag exactly in the off forks");
            String name = benchmark.substring("io.loomgmp.benchmarks.".length());
            // ProcessCpuProfiler on every fork: the process's CPU time per op and the cores it used
            JsonObject secondary = result.getAsJsonObject("secondaryMetrics");
            for (String cpuMetric : List.of("·cpu/op", "·cores")) {
                assertTrue(secondary != null && secondary.has(cpuMetric)
                                && secondary.getAsJsonObject(cpuMetric).get("score").getAsDouble() > 0,
                        benchmark + " " + scheduler + " has " + cpuMetric + ": " + secondary);
            }
            if (LATENCY_BENCHMARKS.contains(name)) {
                assertTrue(result.getAsJsonObject("secondaryMetrics").keySet().stream().anyMatch(k -> k.endsWith(".p99")),
                        benchmark + " " + scheduler + " recorded latencies: " + result.get("secondaryMetrics"));
            }
            String variant = benchmark + result.getAsJsonObject("params").entrySet().stream()
                    .filter(param -> !param.getKey().equals("scheduler"))
                    .map(param -> " " + param.getKey() + "=" + param.getValue().getAsString()).sorted()
                    .collect(Collectors.joining());
            assertTrue(schedulers.computeIfAbsent(variant, b -> new TreeSet<>()).add(scheduler),
                    variant + " ran twice with " + scheduler);
            benchmarksRun.add(benchmark);
        }
        assertEquals(suite, benchmarksRun);
        schedulers.forEach((benchmark, ran) -> assertEquals(Set.of("gmp", "fjp"), ran, benchmark));
        LATENCY_BENCHMARKS.forEach(name -> assertTrue(suite.contains("io.loomgmp.benchmarks." + name), name + " exists"));

        String markdown = Files.readString(OUT.resolve("results.md"));
        for (String benchmark : suite) {
            String shortName = benchmark.substring("io.loomgmp.benchmarks.".length()).replace("Benchmark.", ".");
            assertTrue(markdown.contains("| " + shortName), shortName + " in results.md");
        }
        // The hand-offs over the floors measured in the same run, and CPU time beside wall time
        String floorTable = markdown.substring(markdown.indexOf("| benchmark | hand-offs/op |"));
        for (String row : List.of("| Floor.continuationYield | 1 ", "| Floor.platformParkUnpark | 2 ",
                "| PingPong.parkUnpark | 2 ", "| Ring.trip (depth=64, mode=perTrip, threads=100) | 100 ",
                "| TimedPark.round (parkers=100) | 100 ", "| YieldStorm.yieldStorm | 1 ")) {
            assertTrue(floorTable.contains(row), row + " in the floor table:\n" + markdown);
        }
        assertTrue(markdown.contains("| benchmark | unit | GMP time/op | GMP CPU/op | GMP cores |"), markdown);
        assertTrue(Files.size(OUT.resolve("chart.png")) > 10_000, "chart.png written");
        assertEquals(tableBefore, Files.readString(ROOT.resolve("docs/performance.md")), "a smoke run leaves the published table alone");
    }

    @Test
    void onlyAWholeRunMayPublishIntoTheReadme() throws Exception {
        for (String[] args : List.of(new String[] {"bench", "--smoke", "--publish"}, new String[] {"bench", "--publish", "Skynet"})) {
            Run run = loomgmp(1, args);
            assertEquals(2, run.exitCode(), run.stdout() + run.stderr());
            assertTrue(run.stderr().contains("--publish needs a whole run"), run.stderr());
            assertFalse(run.stdout().contains("bench:"), "nothing ran: " + run.stdout());
        }
    }

    @Test
    void anUnknownOptionIsRefusedBeforeAnythingRuns() throws Exception {
        Run run = loomgmp(1, "bench", "--fast");
        assertEquals(2, run.exitCode(), run.stdout() + run.stderr());
        assertTrue(run.stderr().contains("unknown option '--fast'"), run.stderr());
        assertTrue(run.stderr().contains("./loomgmp bench [--quick | --first-seconds | --smoke] [--procs N,...] [--publish] [REGEX]"), "usage: " + run.stderr());
        assertFalse(run.stdout().contains("bench:"), run.stdout());
    }
}
