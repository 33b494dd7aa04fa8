package io.loomgmp.benchmarks.runner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The runner's command line:
 * {@code [--quick | --first-seconds | --smoke] --agent JAR --out DIR [--readme FILE] [--log FILE] [--procs N,...] [REGEX]}.
 *
 * @param include which benchmarks to run: JMH's include regex, matched against
 *        {@code io.loomgmp.benchmarks.Class.method}; every benchmark when absent
 * @param readme the README whose benchmark section to rewrite, or none
 * @param log where JMH's own output goes
 * @param procs the numbers of Ps to run the benchmarks that have a {@code procs} parameter with
 *        ({@code io.loomgmp.benchmarks.OnSchedulerAtProcs}), each for both schedulers; empty: once,
 *        with the default (the cores). 0 stands for the default.
 */
record RunnerOptions(Profile profile, Path agent, Path out, Optional<Path> readme, Path log, Optional<String> include,
                     List<Integer> procs) {
    /** The most Ps a run may ask for: the JDK's own bound for the parallelism. */
    static final int MAX_PROCS = 32767;
    static final String USAGE = """
            usage: BenchRunner [--quick | --first-seconds | --smoke] --agent JAR --out DIR [--readme FILE] [--log FILE]
                               [--procs N,...] [REGEX]
              --quick        one fork, 2 x 500 ms warm-up, 5 x 500 ms measurement (about 7.5 minutes on 2 cores)
              --first-seconds  a fresh JVM's first second: 5 forks, no warm-up, 5 x 200 ms measurement
              --smoke        one 100 ms iteration with tiny sizes: only checks that the benchmarks run (about 2 min)
                             (default: the full run, 2 forks, 3 x 2 s warm-up, 5 x 2 s measurement, about 73 minutes)
              --agent JAR    loom-bridge/target/loom-gmp-agent.jar, loaded into the gmp forks
              --out DIR      where jmh-result.json, results.md and chart.png go
              --readme FILE  rewrite FILE between <!-- bench:begin --> and <!-- bench:end -->
              --log FILE     JMH's own output (default: DIR/jmh.log)
              --procs N,...  run the benchmarks with a procs parameter (Skynet, FanOut, PingPong, YieldStorm) once
                             per number of Ps, e.g. 2,8,32 on 2 cores: -p procs=N and
                             -Djdk.virtualThreadScheduler.parallelism=N for both schedulers (0: the cores)
              REGEX          only the benchmarks whose name (io.loomgmp.benchmarks.Class.method) it finds
            Every benchmark runs twice: scheduler=gmp with the agent, scheduler=fjp without.""";

    /** A command line that cannot be run; the message says why. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** @return the options, or empty if help was asked for */
    static Optional<RunnerOptions> parse(List<String> args) throws UsageException {
        Profile profile = Profile.FULL;
        Path agent = null;
        Path out = null;
        Path readme = null;
        Path log = null;
        String include = null;
        List<Integer> procs = List.of();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "-h", "--help" -> {
                    return Optional.empty();
                }
                case "--quick", "--first-seconds", "--smoke" -> {
                    if (profile != Profile.FULL) {
                        throw new UsageException("--quick, --first-seconds and --smoke exclude each other");
                    }
                    profile = switch (arg) {
                        case "--quick" -> Profile.QUICK;
                        case "--first-seconds" -> Profile.FIRST_SECONDS;
                        default -> Profile.SMOKE;
                    };
                }
                case "--agent" -> agent = Path.of(value(args, i++));
                case "--out" -> out = Path.of(value(args, i++));
                case "--readme" -> readme = Path.of(value(args, i++));
                case "--log" -> log = Path.of(value(args, i++));
                case "--procs" -> procs = procsList(value(args, i++));
                default -> {
                    if (arg.startsWith("-")) {
                        throw new UsageException("unknown option " + arg);
                    }
                    if (include != null) {
                        throw new UsageException("one REGEX at most, got \"" + include + "\" and \"" + arg + "\"");
                    }
                    try {
                        Pattern.compile(arg);
                    } catch (PatternSyntaxException e) {
                        throw new UsageException("bad REGEX \"" + arg + "\": " + e.getDescription());
                    }
                    include = arg;
                }
            }
        }
        if (agent == null || out == null) {
            throw new UsageException("--agent and --out are required");
        }
        return Optional.of(new RunnerOptions(profile, agent, out, Optional.ofNullable(readme),
                log != null ? log : out.resolve("jmh.log"), Optional.ofNullable(include), procs));
    }

    /** "2,8,32": distinct numbers of Ps from 0 (the cores) to {@link #MAX_PROCS}, in the given order. */
    private static List<Integer> procsList(String text) throws UsageException {
        List<Integer> procs = new ArrayList<>();
        for (String item : text.split(",", -1)) {
            int n;
            try {
                n = Integer.parseInt(item.trim());
            } catch (NumberFormatException e) {
                throw new UsageException("--procs takes numbers of Ps separated by commas (2,8,32), got \"" + text + "\"");
            }
            if (n < 0 || n > MAX_PROCS) {
                throw new UsageException("--procs " + n + ": expected 0 (the cores) to " + MAX_PROCS);
            }
            if (procs.contains(n)) {
                throw new UsageException("--procs " + n + " given twice");
            }
            procs.add(n);
        }
        return List.copyOf(procs);
    }

    private static String value(List<String> args, int i) throws UsageException {
        if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
            throw new UsageException(args.get(i) + " needs a value");
        }
        return args.get(i + 1);
    }
}
