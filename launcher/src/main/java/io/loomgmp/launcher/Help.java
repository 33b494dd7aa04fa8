package io.loomgmp.launcher;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Every command's help, in one place each, and the two ways it is shown: the list that
 * {@code ./loomgmp help} prints (each command's first paragraph) and one command's whole help
 * ({@code ./loomgmp help <command>}, {@code ./loomgmp <command> --help}). A usage error prints the
 * command's synopsis from the same text.
 *
 * <p>A help text starts with its synopsis lines (the command's name, then its options, without
 * "./loomgmp "), then one to three lines that say what it does; a blank line ends that first
 * paragraph. {@code ${name}} stands for a measured time or a path ({@link #values}): the docs
 * quote the times word for word, so a time changes here and there together.
 */
final class Help {
    /** The commands, by who runs them: the order {@code help} lists them in. */
    static final List<String> USER_COMMANDS = List.of("run", "top", "trace", "jfc", "version");
    static final List<String> EVALUATOR_COMMANDS = List.of("demo", "bench", "soak");
    static final List<String> CONTRIBUTOR_COMMANDS = List.of("build", "test");
    static final List<String> ALL_COMMANDS = Stream.of(USER_COMMANDS, EVALUATOR_COMMANDS, CONTRIBUTOR_COMMANDS,
            List.of("help")).flatMap(List::stream).toList();

    /** How long the long commands take, measured on 2 cores; the docs quote these. */
    private static final Map<String, String> TIMES = Map.ofEntries(
            Map.entry("time_bench", "about 73 min"), // estimated: 64 min 36 s on 2026-11-28, and 14 runs without JVMTI transitions since (about 36 s each)
            Map.entry("time_bench_published", "64 min 34 s"), // the last published full run (2026-11-28)
            Map.entry("time_bench_quick", "about 7.5 min"), // estimated: 6.5 min, and 14 runs of about 5 s since
            Map.entry("time_bench_smoke", "about 2 min"), // estimated: 1.5 min, and 14 runs of about 3 s since
            Map.entry("time_bench_first_seconds", "about 30 min"), // estimated: 20 of its 126 runs took 5 min
            Map.entry("time_bench_startup", "about 6 min"), // with run.sh's default 10 runs
            Map.entry("time_bench_saturation", "about 12 min"), // 40 cells (SaturationProfile.FULL)
            Map.entry("time_bench_saturation_quick", "about 2.5 min"), // 18 cells
            Map.entry("time_bench_saturation_smoke", "under a minute"),
            Map.entry("time_demo", "about 30 s"), // 30.5 and 31.1 s on 2026-11-28; 38 to 41 s beside other builds
            Map.entry("time_demo_small", "about 20 s"), // 19.3 s; 20 to 21 s beside other builds
            Map.entry("time_test", "6 to 10 minutes"), // about 6 on a quiet machine, 10 beside a CPU hog
            Map.entry("time_soak", "10 min")); // the soak's default --duration (SoakOptions)

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z_]+)}");

    private final Checkout checkout;

    Help(Checkout checkout) {
        this.checkout = checkout;
    }

    /** A measured time the messages print too, e.g. {@code time("time_bench")}. */
    static String time(String name) {
        String value = TIMES.get(name);
        if (value == null) {
            throw new IllegalArgumentException("no time " + name);
        }
        return value;
    }

    /** The values {@code ${name}} stands for in the help texts. */
    private Map<String, String> values() {
        Map<String, String> values = new LinkedHashMap<>(TIMES);
        values.put("bench_doc", BenchCommand.BENCH_DOC);
        values.put("shapes", String.join(" ", SaturationCommand.SHAPES));
        values.put("servers", String.join(" ", SaturationCommand.SERVERS));
        values.put("agent", checkout.agentJar().toString());
        return values;
    }

    static boolean isCommand(String word) {
        return ALL_COMMANDS.contains(word);
    }

    /** {@code command}'s help text as written below, its placeholders filled in. */
    String text(String command) {
        String raw = switch (command) {
            case "run" -> RUN;
            case "top" -> TOP;
            case "trace" -> TRACE;
            case "jfc" -> JFC;
            case "version" -> VERSION;
            case "demo" -> DEMO;
            case "bench" -> BENCH;
            case "soak" -> SOAK;
            case "build" -> BUILD;
            case "test" -> TEST;
            case "help" -> HELP;
            default -> throw new IllegalArgumentException("no command " + command);
        };
        Map<String, String> values = values();
        Matcher m = PLACEHOLDER.matcher(raw);
        return m.replaceAll(match -> {
            String value = values.get(match.group(1));
            if (value == null) {
                throw new IllegalStateException("help " + command + ": no value for " + match.group());
            }
            return Matcher.quoteReplacement(value);
        });
    }

    /** The list of every command, by who runs them: each command's first paragraph. */
    String overview() {
        StringBuilder out = new StringBuilder();
        out.append("usage: ./loomgmp <command> [options]\n");
        out.append("Finds a JDK 25 and builds what is missing or built from sources that changed since, with ./mvnw.\n");
        group(out, "users", USER_COMMANDS);
        group(out, "evaluators", EVALUATOR_COMMANDS);
        group(out, "contributors", CONTRIBUTOR_COMMANDS);
        out.append("\n./loomgmp help <command> (or ./loomgmp <command> --help): its options, an example, how long it takes.\n");
        return out.toString();
    }

    private void group(StringBuilder out, String who, List<String> commands) {
        out.append("\nFor ").append(who).append(":\n");
        for (String command : commands) {
            for (String line : firstParagraph(command)) {
                out.append(isSynopsis(command, line) ? "  ./loomgmp " : "      ").append(line).append('\n');
            }
        }
    }

    /** {@code command}'s whole help: its synopsis lines as usage lines, then the rest as written. */
    String of(String command) {
        List<String> lines = text(command).lines().toList();
        StringBuilder out = new StringBuilder("usage: ./loomgmp ").append(lines.getFirst()).append('\n');
        boolean first = true;
        for (String line : lines.subList(1, lines.size())) {
            first &= !line.isEmpty();
            out.append(first && isSynopsis(command, line) ? "       ./loomgmp " : "").append(line).append('\n');
        }
        return out.toString();
    }

    /** What a usage error prints after its message: the usage lines of {@link #of}. */
    String synopsis(String command) {
        return of(command).lines().takeWhile(line -> line.startsWith("usage: ") || line.startsWith("       ./loomgmp "))
                .map(line -> line + "\n").collect(Collectors.joining());
    }

    private List<String> firstParagraph(String command) {
        return text(command).lines().takeWhile(line -> !line.isEmpty()).toList();
    }

    /** A synopsis line starts with the command's name as its first word. */
    private static boolean isSynopsis(String command, String line) {
        String first = line.strip().split("\\s+", 2)[0];
        return first.equals(command);
    }

    // The help texts. The first line (and any line after it that starts with the command's name)
    // is the synopsis; the first paragraph is the command's entry in the list.

    private static final String RUN = """
            run [--agent-args K=V,K=V] [--aot FILE] [--] <java args>
            java with the loom-gmp agent: java -javaagent:<agent jar>[=K=V,K=V] <java args>

            Options (before the java arguments; the first argument that is not one of them starts those):
              --agent-args K=V,K=V  the agent's settings, comma-separated, after the agent jar's '=', e.g.
                                    parallelism=4,verbose=true (every setting: java -jar
                                    loom-bridge/target/loom-gmp-agent.jar in the checkout)
              --aot FILE            start faster with a JDK 25 AOT cache (JEP 483, JEP 514), FILE:
                                    - FILE does not exist: this run is the training run. The JVM writes FILE
                                      when the application exits (-XX:AOTCacheOutput=FILE). This run is
                                      WITHOUT the agent, on the JDK's own scheduler (with --add-modules
                                      java.instrument, so that the cache fits the runs with the agent): on
                                      JDK 25.0.3 the JVM crashes assembling a cache recorded with an agent
                                      that rewrites java.lang.VirtualThread, and writes none.
                                    - FILE exists: the run uses it, with the agent (-XX:AOTCache=FILE
                                      -XX:AOTMode=on: if the JVM cannot use FILE it stops and says why rather
                                      than start without it).
                                    The application classes in FILE are loaded before the agent starts, so
                                    they get no preemption polls: a CPU-bound loop in them is not preempted.
                                    FILE is valid only for the same JDK, the same agent jar and the same class
                                    path: after a JDK update, a rebuild of the agent or a new application jar,
                                    delete FILE and train again. The JVM does not notice a rebuilt jar (it
                                    runs the classes cached from the old one), so the training run writes
                                    FILE.inputs (the JDK, the agent jar, each class path entry, with
                                    checksums) beside FILE, and a run whose inputs differ stops (exit 2)
                                    naming the one that changed.
              --                    ends the launcher's options: everything after it goes to java
              -h, --help            this help

            Paths are relative to the directory you run it from. Writes nothing itself (but FILE and
            FILE.inputs on a training run); builds the agent first if it is missing or its sources changed.

            Examples:
              ./loomgmp run -jar app.jar
              ./loomgmp run --agent-args parallelism=4,verbose=true -cp app.jar com.example.Main
              ./loomgmp run --aot app.aot -jar app.jar   (the first run trains app.aot, the next ones use it)
            """;

    private static final String TOP = """
            top <pid> [--once | --frames N] [--interval D] [--trace D]
            a live console, like top, for a running JVM under the agent (no restart, no flag): its scheduler
            every second, each P with the task it runs, carriers, rates; q quits, t traces for 5 s

              <pid>          the JVM to watch (jps lists them); it must run the loom-gmp agent
              --once         print one frame (after one interval, so that it has rates) and exit
              --frames N     print N frames, one per interval, and exit (for scripts)
              --interval D   time between refreshes (default 1s, at least 100ms)
              --trace D      trace at once, for D (at most 60s); t then traces for D too
              -h, --help     this help
              D is 5s, 500ms, 1m, or a number of seconds.
            Keys: q quits (so does Ctrl-C); t streams loom-gmp's tracing events for 5 s and lists the virtual
            threads that ran longest and those that waited longest.
            Writes nothing.

            Examples:
              ./loomgmp top 12345
              ./loomgmp top 12345 --once
            """;

    private static final String TRACE = """
            trace <recording.jfr> [-o DIR]
            trace.json (Perfetto, chrome://tracing) and trace.html (a browser) from a JFR recording

              <recording.jfr>  a JFR recording of a JVM under the agent, with loom-gmp's events (record one
                               with the settings file ./loomgmp jfc names)
              -o DIR           write into DIR instead of beside the recording
              -h, --help       this help
            Writes trace.json and trace.html beside the recording, or into DIR. Paths are relative to the
            directory you run it from.

            Example:
              ./loomgmp run -XX:StartFlightRecording:filename=rec.jfr,settings=default,settings=$(./loomgmp jfc) -jar app.jar
              ./loomgmp trace rec.jfr -o rec-trace
            """;

    private static final String JFC = """
            jfc [always|trace]
            prints the path of a loom-gmp JFR settings file (default: trace), to add to the JDK's own with a
            second settings= in -XX:StartFlightRecording

              always   always-on: sysmon's preemptions and hand-offs, the schedtrace figures and the scheduling
                       latencies every second; cheap enough for production
              trace    tracing: every run of every task on every P, steals, wake-ups, carrier parks, for
                       ./loomgmp trace
            Writes nothing: the file is in the checkout (jfr-events/src/main/resources/io/loomgmp/jfr/).

            Example:
              java -javaagent:${agent} -XX:StartFlightRecording:filename=rec.jfr,settings=default,settings=$(./loomgmp jfc always) -jar app.jar
            """;

    private static final String VERSION = """
            version
            loom-gmp's version, the agent jar, the JDKs it supports and the JDK found

            Writes nothing; builds the agent first if it is missing or its sources changed.

            Example:
              ./loomgmp version
            """;

    private static final String DEMO = """
            demo [--small]
            GMP beside the JDK's ForkJoinPool on what users choose a scheduler for, side by side (${time_demo}; --small ${time_demo_small})

              --small      shorter windows, smaller hand-off workloads: ${time_demo_small} instead of ${time_demo}
              -h, --help   this help
            Each workload runs in a JVM of its own per scheduler; a line under every row says what it means:
              1. a saturated server (a virtual thread per connection on loopback TCP, 50 connections per core
                 sending requests of 1 ms of CPU): requests/s, CPU per request, p50 and p99 latency, the
                 longest wait, connections that got no answer, cores busy;
              2. short requests (0.1 ms) beside long ones (100 ms), both at once: each class's answers and p99,
                 the short ones' longest wait and connections that got no answer;
              3. every carrier pinned (a class initialiser; a FIFO read, on Linux) or held by CPU hogs: how
                 soon a new virtual thread runs;
              4. the hand-off cost (ping-pong, fan-out), and how much of it is the JVMTI tax any agent brings.
            Figures are printed as measured, with GMP/FJP ratios; a JVM that fails, or outlives its bound and
            is killed, stops the demo with status 1. Tables on standard output, progress on standard error.
            Writes nothing; builds the agent and the demo first if they are missing or their sources changed.

            Example:
              ./loomgmp demo --small
            """;

    private static final String BENCH = """
            bench [--quick | --first-seconds | --smoke] [--procs N,...] [--publish] [REGEX]
            bench --startup [--runs N] [--only server|trivial] [--agent JAR] [--baseline JAR] [--publish]
            bench --saturation [--quick | --smoke] [--shape NAME] [--server NAME] [--duration S] [--agent JAR] [--publish] [--install-packages]
            the JMH suite, GMP against ForkJoinPool (${time_bench} on 2 cores; --quick ${time_bench_quick},
            --smoke ${time_bench_smoke}), with --startup the start-up benchmark (${time_bench_startup}), or with
            --saturation HTTP servers loaded far past capacity (${time_bench_saturation}; --quick ${time_bench_saturation_quick})

              (no option)  the full run: ${time_bench} on 2 cores (the last published run took ${time_bench_published})
              --quick      1 fork, 2 x 500 ms warm-up, 5 x 500 ms measurement: ${time_bench_quick}
              --first-seconds  a fresh JVM's first second, not the steady state: 5 forks, no warm-up,
                           5 x 200 ms measurement (JMH's log has each fork's iterations): ${time_bench_first_seconds}
              --smoke      one 100 ms iteration with tiny sizes, to show that every benchmark runs: ${time_bench_smoke}
              --procs N,...  run the benchmarks that have a procs parameter (Skynet, FanOut, PingPong,
                           YieldStorm) once per number of Ps, e.g. 2,8,32 on 2 cores, both schedulers with
                           -Djdk.virtualThreadScheduler.parallelism=N (0: the cores); the others run once.
                           On 2 cores it shows the work per task that grows with the Ps, not scaling.
              REGEX        only the benchmarks whose name the regex finds, e.g. Skynet
              --publish    a whole run (no REGEX, --procs, --smoke or --first-seconds) that writes TRACKED files instead:
                           benchmarks/results/ and the benchmark table in ${bench_doc}; commit them with the
                           code they measured. bench --publish (and bench --startup --publish, bench --saturation
                           --publish) is the only command that writes tracked files.
              --startup    the start-up benchmark instead of JMH: benchmarks/startup/run.sh with every argument
                           after --startup (--runs N starts per configuration, default 10; --only server|trivial;
                           --agent JAR; --baseline JAR, another build of the agent to compare; --publish;
                           ./loomgmp bench --startup --help lists them).
                           It takes ${time_bench_startup} with the default 10 runs on 2 cores.
              --saturation the saturation benchmark instead of JMH: a plain virtual-thread-per-connection server
                           (vthread) and Jetty 12 (jetty) on loopback, loaded with wrk (closed loop) and an
                           open-loop client far past what the cores serve, each cell on GMP and on ForkJoinPool
                           in turn; per request class: requests/s, server CPU per request, p50/p99/p99.9/max
                           latency, timeouts and errors. Needs Debian's wrk. Its options (after --saturation):
                             (no option)        every shape on both servers, 4 s warm-up and 10 s measured
                                                per cell: ${time_bench_saturation} on 2 cores
                             --quick            3 s windows, fewer connection levels: ${time_bench_saturation_quick}
                             --smoke            one tiny cell per shape, to show that it runs: ${time_bench_saturation_smoke}
                             --shape NAME       only that shape (repeat it, or NAME,NAME): ${shapes}
                             --server NAME      every shape on that server only: ${servers}
                             --duration S       the measured window of each cell, whole seconds (1 to 600)
                             --agent JAR        measure that build of the agent (default: this checkout's, built
                                                if missing or stale), e.g. for before/after tables
                             --publish          a whole default run that writes TRACKED files instead:
                                                benchmarks/results/saturation.md and .csv, and the saturation
                                                section of ${bench_doc}
                             --install-packages first install Debian's wrk with apt-get if it is missing (as root
                                                on Debian or Ubuntu; otherwise it stops and says why)
              -h, --help   this help
            Writes benchmarks/target/bench/ (jmh-result.json, results.md, chart.png) and JMH's log
            benchmarks/target/bench.log (neither is tracked); with --publish benchmarks/results/ and
            ${bench_doc} instead. --startup writes benchmarks/startup/target/ (see its --help for --publish).
            --saturation writes benchmarks/target/saturation/ (results.md, results.csv, and logs/ with each
            cell's output); with --publish benchmarks/results/saturation.md and .csv and ${bench_doc} instead
            (the logs stay in benchmarks/target/saturation/logs/); --install-packages installs a Debian package.
            Builds the agent and the benchmarks first if they are missing or their sources changed.

            Examples:
              ./loomgmp bench --quick Skynet
              ./loomgmp bench --publish
              ./loomgmp bench --startup --runs 5 --only trivial
              ./loomgmp bench --saturation --quick
              ./loomgmp bench --saturation --shape cpu --server jetty --agent /tmp/before/loom-gmp-agent.jar
            """;

    private static final String SOAK = """
            soak [--duration D] [--seed N] [--max-procs N] [--progress D]
            the soak: everything at once on a GMP scheduler for D (default ${time_soak}), then its checks; exits 0
            only if nothing was lost, run twice or fired early and carriers and heap came back to baseline.
            It runs with assertions on (-ea), so the scheduler checks its own invariants throughout.

            Its options and checks are the soak's own: ./loomgmp soak --help prints them (it builds the soak
            first if it is missing or its sources changed).
            Takes the --duration (${time_soak} unless given) plus an 8 s warm-up and the checks at the end.
            Writes only temporary files (its JFR recordings, deleted at the end; a failure's evidence) under
            the system's temporary directory.

            Example:
              ./loomgmp soak --duration 30m --seed 42
            """;

    private static final String BUILD = """
            build
            (re)build the agent, the demo, the trace viewer, the soak and the benchmarks with ./mvnw

            Tests are skipped (./loomgmp test runs them). The other commands build what they run by themselves
            when it is missing or its sources changed; this builds everything at once.
            Writes the modules' target/ directories (not tracked).

            Example:
              ./loomgmp build
            """;

    private static final String TEST = """
            test [--check] [--install-packages] [maven args]
            the whole test suite, as CI runs it: ./mvnw -B verify, then the tests it skipped and why
            (${time_test} on 2 cores)

              --install-packages  first install, with apt-get, what the tests need and is missing: Debian's
                                  chromium (the trace.html browser tests) and tmux (the live console's
                                  terminal test, TopIT). As root on Debian or Ubuntu only: otherwise it stops
                                  (exit 2) and says why. With nothing missing it installs nothing.
              --check             print the plan (what is missing, what would be installed or skipped, the
                                  Maven command) and run nothing
              maven args          passed on to ./mvnw -B verify, e.g. -pl dispatcher -am
              -h, --help          this help
            Without --install-packages it installs nothing: it names each missing tool, the tests that will
            be SKIPPED and how to get them, then runs the suite. LOOMGMP_CHROMIUM=<path> names a Chromium that
            is not on the PATH.
            Takes ${time_test} on 2 cores: about 6 on a quiet machine, 10 beside a CPU hog.
            Writes the modules' target/ directories (not tracked); --install-packages installs Debian packages.

            Examples:
              ./loomgmp test
              ./loomgmp test --install-packages   (as root: what CI runs, .ci/run)
              ./loomgmp test --check
            """;

    private static final String HELP = """
            help [command]
            the commands, or one command's options, an example and how long it takes

            ./loomgmp <command> --help is the same as ./loomgmp help <command>.
            """;

}
