package io.loomgmp.benchmarks.runner;

import io.loomgmp.benchmarks.HandOffBenchmark;
import io.loomgmp.benchmarks.LatencyProfiler;
import io.loomgmp.benchmarks.OnSchedulerAtProcs;
import io.loomgmp.benchmarks.ProcessCpuProfiler;
import io.loomgmp.benchmarks.report.Report;
import io.loomgmp.benchmarks.report.ReadmeSection;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Runs the suite against both schedulers and writes the report: what {@code ./loomgmp bench} runs.
 *
 * <p>Each benchmark runs twice, one JMH run per scheduler, because JMH cannot vary JVM arguments
 * with a parameter: {@code -p scheduler=gmp} with {@code -javaagent:<agent>} prepended to the
 * forks' JVM arguments (so that every virtual thread runs on GMP, as it does for users of the
 * agent), then {@code -p scheduler=fjp} without it. The agent goes in {@code jvmArgsPrepend}
 * because a benchmark's own {@code @Fork(jvmArgsAppend = ...)} (e.g. JMH's virtual-thread
 * executor) must survive. Each fork checks that its parameter matches its JVM
 * ({@code io.loomgmp.benchmarks.OnScheduler}). Every fork runs with the latency and the CPU-time
 * profilers ({@code LatencyProfiler}, {@code ProcessCpuProfiler}). One progress line per run goes to standard output,
 * JMH's own output to the log; the results of all runs are merged into one JMH JSON file.
 *
 * <p>With {@code --procs 2,8,32}, each benchmark that has a {@code procs} parameter
 * ({@code io.loomgmp.benchmarks.OnSchedulerAtProcs}) runs once per number of Ps, for both
 * schedulers: {@code -p procs=N}, and {@code -Djdk.virtualThreadScheduler.parallelism=N} in
 * {@code jvmArgsPrepend}, since a parameter cannot change the fork's JVM arguments and both
 * schedulers read their parallelism from that property when the JVM starts (each fork checks the
 * two agree). The others run once, as without the option.
 */
public final class BenchRunner {
    private static final String PACKAGE = "io.loomgmp.benchmarks.";
    private static final List<String> SCHEDULERS = List.of("gmp", "fjp");
    /** The parameter of the benchmarks measured per number of Ps, which then run once per {@code --procs}. */
    private static final String PROCS_PARAMETER = OnSchedulerAtProcs.PARAM;
    /** Where both schedulers read their number of Ps from when the JVM starts. */
    private static final String PARALLELISM_PROPERTY = OnSchedulerAtProcs.PARALLELISM_PROPERTY;
    /**
     * The parameter of {@link HandOffBenchmark}s: those run once more per scheduler with
     * {@link HandOffBenchmark#OFF_OPTIONS} in their forks and {@code -p jvmtiTransitions=off}, to
     * measure the tax any agent brings (the flag is not safe to run with).
     */
    private static final String TRANSITIONS_PARAM = HandOffBenchmark.PARAM;

    /** One JMH run of a benchmark: a scheduler, with or without JVMTI transitions. */
    record Variant(String scheduler, boolean fast) {
        String label() {
            return scheduler + (fast ? " (JVMTI transitions off)" : "");
        }
    }
    /**
     * The report's order: the floor under every hand-off, then the list, from hand-offs to
     * whole servers, then the micro-benchmarks.
     */
    private static final List<String> SUITE_ORDER = List.of("FloorBenchmark", "PingPongBenchmark", "RingBenchmark",
            "TimedParkBenchmark", "SkynetBenchmark", "FanOutBenchmark",
            "YieldStormBenchmark", "TimersBenchmark", "ProducerConsumerBenchmark", "FairnessBenchmark",
            "PinnedBenchmark", "HttpBenchmark", "JettyBenchmark", "TomcatBenchmark", "DispatcherBenchmark", "PreemptionPollBenchmark",
            "JfrCostPingPongBenchmark", "JfrCostSkynetBenchmark", "LatencySampleCostBenchmark");

    /**
     * Warm-up iterations these benchmarks need at least, in a run with real iteration counts: the
     * HTTP client and servers keep compiling for about 15 s (each 2 s iteration's throughput rose
     * for the first 7 on the 2-core machine), and measuring before that measures the JIT.
     */
    private static final Map<String, Integer> MIN_WARMUP_ITERATIONS = Map.of("HttpBenchmark", 8, "JettyBenchmark", 8, "TomcatBenchmark", 8);

    private final RunnerOptions options;
    private final PrintStream progress;

    BenchRunner(RunnerOptions options, PrintStream progress) {
        this.options = options;
        this.progress = progress;
    }

    public static void main(String[] args) {
        Optional<RunnerOptions> options;
        try {
            options = RunnerOptions.parse(List.of(args));
        } catch (RunnerOptions.UsageException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.println(RunnerOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.isEmpty()) {
            System.out.println(RunnerOptions.USAGE);
            return;
        }
        try {
            System.exit(new BenchRunner(options.get(), System.out).run());
        } catch (IOException e) {
            System.err.println("bench: " + e);
            System.exit(1);
        }
    }

    /** @return the exit status: 0, or 1 if a benchmark failed */
    int run() throws IOException {
        long start = System.nanoTime();
        Files.createDirectories(options.out());
        Files.createDirectories(options.log().toAbsolutePath().getParent());
        Map<String, List<Variant>> benchmarks = benchmarks();
        if (benchmarks.isEmpty()) {
            System.err.println("bench: no benchmark matches \"" + options.include().orElse("") + "\"");
            return 1;
        }
        List<Run> runs = runs(List.copyOf(benchmarks.keySet()), withProcsParameter());
        String machine = Machine.describe(options.profile(), LocalDate.now());
        int total = runs.stream().mapToInt(run -> benchmarks.get(run.benchmark()).size()).sum();
        progress.printf("bench: %d benchmarks x %d schedulers, the %d hand-off ones also without JVMTI transitions%s: %d runs, %s each%n",
                benchmarks.size(), SCHEDULERS.size(), benchmarks.values().stream().filter(v -> v.size() > SCHEDULERS.size()).count(),
                options.procs().isEmpty() ? "" : ", with procs = " + options.procs() + " where a benchmark has that parameter",
                total, options.profile().describe());
        progress.printf("bench: JMH's output goes to %s%n", options.log());
        List<RunResult> results = new ArrayList<>();
        try (PrintStream log = new PrintStream(Files.newOutputStream(options.log()), true, StandardCharsets.UTF_8)) {
            // Each Runner closes its output format when it ends; the log must outlive them all.
            PrintStream unclosable = new PrintStream(new FilterOutputStream(log) {
                @Override
                public void close() throws IOException {
                    flush();
                }
            }, true, StandardCharsets.UTF_8);
            int done = 0;
            for (Run each : runs) {
                String benchmark = each.benchmark();
                for (Variant variant : benchmarks.get(benchmark)) {
                    String scheduler = variant.label() + (each.procs() == null ? "" : ", procs=" + each.procs());
                    done++;
                    long runStart = System.nanoTime();
                    List<RunResult> run;
                    try {
                        OutputFormat jmhOutput = OutputFormatFactory.createFormatInstance(unclosable, VerboseMode.NORMAL);
                        run = new ArrayList<>(new Runner(options(benchmark, variant, each.procs()), jmhOutput).run());
                    } catch (RunnerException e) {
                        log.flush();
                        System.err.printf("bench: %s with scheduler=%s failed: %s%n", shortName(benchmark), scheduler,
                                e.getCause() != null ? e.getCause() : e);
                        System.err.println("bench: the end of JMH's output (" + options.log() + "):");
                        tail(options.log(), 40).forEach(line -> System.err.println("  " + line));
                        return 1;
                    }
                    if (run.isEmpty()) {
                        System.err.printf("bench: %s with scheduler=%s gave no result (see %s)%n", shortName(benchmark),
                                scheduler, options.log());
                        return 1;
                    }
                    for (RunResult result : run) {
                        progress.println(progressLine(done, total, benchmark, variant.scheduler(), result,
                                Duration.ofNanos(System.nanoTime() - runStart)));
                    }
                    results.addAll(run);
                }
            }
        }
        Path json = options.out().resolve("jmh-result.json");
        ResultFormatFactory.getInstance(ResultFormatType.JSON, json.toString()).writeOut(results);
        Report.write(json, options.out(), machine);
        progress.println("bench: wrote " + json + ", " + options.out().resolve(Report.MARKDOWN) + " and "
                + options.out().resolve(Report.CHART));
        if (options.readme().isPresent()) {
            Path readme = options.readme().get();
            Path chartFromReadme = readme.toAbsolutePath().getParent()
                    .relativize(options.out().toAbsolutePath().resolve(Report.CHART));
            String updated;
            try {
                updated = ReadmeSection.replace(Files.readString(readme),
                        Report.readmeSection(json, chartFromReadme.toString().replace('\\', '/'), machine));
            } catch (IllegalArgumentException noSection) {
                System.err.println("bench: " + readme + " left as it was: " + noSection.getMessage());
                return 1;
            }
            Files.writeString(readme, updated);
            progress.println("bench: updated the benchmark section of " + readme);
        }
        long seconds = Duration.ofNanos(System.nanoTime() - start).toSeconds();
        progress.printf("bench: total %d min %02d s%n", seconds / 60, seconds % 60);
        return 0;
    }

    /**
     * The benchmarks of the suite that the include regex selects, by full name, in
     * {@link #SUITE_ORDER}, each with its runs: both schedulers, and both again without JVMTI
     * transitions for a benchmark with the {@link #TRANSITIONS_PARAM} parameter.
     */
    Map<String, List<Variant>> benchmarks() {
        Map<String, List<Variant>> benchmarks = new LinkedHashMap<>();
        suite(options.include().orElse(".*")).stream()
                .sorted(Comparator.comparing((BenchmarkListEntry entry) -> suitePosition(entry.getUsername()))
                        .thenComparing(BenchmarkListEntry::getUsername))
                .forEach(entry -> benchmarks.computeIfAbsent(entry.getUsername(), name -> variants(
                        hasParam(entry, TRANSITIONS_PARAM))));
        return benchmarks;
    }

    /** The suite's benchmark entries (one per parameter set) whose name {@code include} finds. */
    private static List<BenchmarkListEntry> suite(String include) {
        OutputFormat quiet = OutputFormatFactory.createFormatInstance(
                new PrintStream(PrintStream.nullOutputStream()), VerboseMode.SILENT);
        return BenchmarkList.defaultList().find(quiet, List.of(include), List.of()).stream()
                .filter(entry -> entry.getUsername().startsWith(PACKAGE))
                .toList();
    }

    private static boolean hasParam(BenchmarkListEntry entry, String param) {
        return entry.getParams().hasValue() && entry.getParams().get().containsKey(param);
    }

    private static List<Variant> variants(boolean handOff) {
        List<Variant> variants = new ArrayList<>();
        for (boolean fast : handOff ? List.of(false, true) : List.of(false)) {
            SCHEDULERS.forEach(scheduler -> variants.add(new Variant(scheduler, fast)));
        }
        return variants;
    }

    /** One benchmark's runs for both schedulers: with {@code procs} Ps, or ({@code null}) with no procs given. */
    record Run(String benchmark, Integer procs) {
    }

    /**
     * The runs, in the order of {@code benchmarks}: each benchmark of {@code withProcs} once per
     * number of Ps of {@code --procs}, every other one (and every one without {@code --procs}) once.
     */
    List<Run> runs(List<String> benchmarks, Set<String> withProcs) {
        List<Run> runs = new ArrayList<>();
        for (String benchmark : benchmarks) {
            if (options.procs().isEmpty() || !withProcs.contains(benchmark)) {
                runs.add(new Run(benchmark, null));
            } else {
                options.procs().forEach(procs -> runs.add(new Run(benchmark, procs)));
            }
        }
        return runs;
    }

    /** The benchmarks of the suite that have a {@code procs} parameter ({@code OnSchedulerAtProcs}). */
    static Set<String> withProcsParameter() {
        Set<String> names = new TreeSet<>();
        for (BenchmarkListEntry entry : suite(".*")) {
            if (hasParam(entry, PROCS_PARAMETER)) {
                names.add(entry.getUsername());
            }
        }
        return names;
    }

    /** A benchmark's class in {@link #SUITE_ORDER}; classes not listed go last. */
    private static int suitePosition(String benchmark) {
        String className = benchmark.substring(PACKAGE.length(), benchmark.lastIndexOf('.'));
        int position = SUITE_ORDER.indexOf(className);
        return position < 0 ? SUITE_ORDER.size() : position;
    }

    private org.openjdk.jmh.runner.options.Options options(String benchmark, Variant variant, Integer procs) {
        Profile profile = options.profile();
        ChainedOptionsBuilder builder = new OptionsBuilder()
                .include("^" + Pattern.quote(benchmark) + "$")
                .param("scheduler", variant.scheduler())
                .forks(profile.forks)
                .warmupIterations(warmupIterations(benchmark, profile))
                .warmupTime(profile.warmupTime)
                .measurementIterations(profile.measurementIterations)
                .measurementTime(profile.measurementTime)
                .addProfiler(LatencyProfiler.class)
                .addProfiler(ProcessCpuProfiler.class)
                .timeout(TimeValue.minutes(2)) // an iteration that hangs fails instead of holding the run
                .shouldFailOnError(true);
        profile.params.forEach(builder::param);
        if (procs != null) {
            builder.param(PROCS_PARAMETER, String.valueOf(procs));
        }
        List<String> jvmArgs = jvmArgsPrepend(variant.scheduler(), procs, options.agent());
        if (variant.fast()) {
            builder.param(TRANSITIONS_PARAM, HandOffBenchmark.OFF);
            jvmArgs.addAll(HandOffBenchmark.OFF_OPTIONS);
        }
        return builder.jvmArgsPrepend(jvmArgs.toArray(String[]::new)).build();
    }

    /**
     * The forks' JVM arguments before the benchmark's own: the agent for {@code gmp}, native
     * access for the CPU-time profiler, and for a run with {@code procs} Ps (not 0, the default)
     * the property both schedulers take their parallelism from. Prepended, not appended: a
     * benchmark's own {@code @Fork(jvmArgsAppend = ...)} must survive (JMH replaces it with
     * appended options).
     */
    static List<String> jvmArgsPrepend(String scheduler, Integer procs, Path agent) {
        List<String> args = new ArrayList<>();
        if (scheduler.equals("gmp")) {
            args.add("-javaagent:" + agent.toAbsolutePath());
        }
        // ProcessCpuProfiler reads the process CPU clock through the foreign-function API.
        args.add("--enable-native-access=ALL-UNNAMED");
        if (procs != null && procs != 0) {
            args.add("-D" + PARALLELISM_PROPERTY + "=" + procs);
        }
        return args;
    }

    /** The profile's warm-up, or more for a benchmark in {@link #MIN_WARMUP_ITERATIONS} (not in a smoke run). */
    static int warmupIterations(String benchmark, Profile profile) {
        if (profile == Profile.SMOKE) {
            return profile.warmupIterations;
        }
        String className = benchmark.substring(PACKAGE.length(), benchmark.lastIndexOf('.'));
        return Math.max(profile.warmupIterations, MIN_WARMUP_ITERATIONS.getOrDefault(className, 0));
    }

    /** "[ 3/32] Skynet.tree   gmp  812 ± 40 ms/op   (9.1 s)", with the p99 of each recorded latency. */
    static String progressLine(int done, int total, String benchmark, String scheduler, RunResult result,
                               Duration took) {
        Result<?> primary = result.getPrimaryResult();
        // Parameters other than the scheduler tell apart the runs of one benchmark (recording=...).
        StringBuilder label = new StringBuilder(shortName(benchmark));
        result.getParams().getParamsKeys().stream().filter(key -> !key.equals("scheduler"))
                .filter(key -> result.getParams().getParam(key) != null)
                .forEach(key -> label.append(' ').append(key).append('=').append(result.getParams().getParam(key)));
        StringBuilder line = new StringBuilder(String.format("[%2d/%d] %-38s %-4s %s", done, total,
                label, scheduler, Report.scoreText(primary.getScore(), primary.getScoreError(),
                        primary.getScoreUnit())));
        result.getSecondaryResults().forEach((name, secondary) -> {
            if (name.endsWith(".p99")) {
                line.append("   ").append(name.replace("·", "")).append(' ')
                        .append(Report.scoreText(secondary.getScore(), secondary.getScoreError(), secondary.getScoreUnit()));
            }
        });
        return line.append(String.format(Locale.ROOT, "   (%.1f s)", took.toMillis() / 1e3)).toString();
    }

    static String shortName(String benchmark) {
        return Report.shortName(benchmark);
    }

    private static List<String> tail(Path file, int lines) {
        try {
            List<String> all = Files.readAllLines(file);
            return all.subList(Math.max(0, all.size() - lines), all.size());
        } catch (IOException e) {
            return List.of("(cannot read " + file + ": " + e + ")");
        }
    }
}
