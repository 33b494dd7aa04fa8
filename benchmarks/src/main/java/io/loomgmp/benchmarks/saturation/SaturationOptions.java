package io.loomgmp.benchmarks.saturation;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The saturation runner's command line, checked before anything runs (a bad value is a usage
 * error, exit 2). {@code ./loomgmp bench --saturation} checks the same options before it builds and
 * passes them on, with {@code --agent}, {@code --wrk}, {@code --out} and {@code --command} filled in.
 *
 * @param shapes     the shapes to run; empty: all
 * @param server     the one server to run every shape on; empty: each shape's servers
 * @param duration   the measured window per cell, seconds, instead of the profile's
 * @param out        the report's Markdown file; the CSV goes beside it, with the extension .csv
 * @param doc        the page whose section between the saturation markers to rewrite (--publish)
 * @param logs       where each cell's server, wrk and client output goes
 * @param stepsPerMicro the CPU loop's calibration to use instead of the first server's own
 * @param command    the command to name in the report
 */
record SaturationOptions(SaturationProfile profile, Set<Shape> shapes, Optional<String> server, OptionalInt duration,
                         Path agent, String wrk, Path out, Optional<Path> doc, Path logs, OptionalDouble stepsPerMicro,
                         String command) {
    static final int MAX_DURATION = 600;
    static final String USAGE = """
            usage: SaturationRunner [--quick | --smoke] [--shape NAME]... [--server NAME] [--duration SECONDS]
                                    --agent JAR --out FILE.md [--wrk PATH] [--doc FILE] [--logs DIR]
                                    [--steps-per-us X] [--command TEXT]
              --quick            short windows, fewer connection levels (about 2.5 min on 2 cores)
              --smoke            one tiny cell per shape: only shows that everything runs (under a minute)
                                 (default: every shape on both servers, 4 s warm-up and 10 s measured per cell,
                                 about 12 min)
              --shape NAME       only this shape (again, or comma-separated, for more): cpu handoff mixed hogs+sleeper open
              --server NAME      every shape on this server only: vthread jetty
              --duration SECONDS the measured window of each cell (1 to 600) instead of the profile's
              --agent JAR        the loom-gmp agent the GMP cells run with
              --out FILE.md      the report; the CSV of every cell goes beside it (FILE.csv)
              --wrk PATH         the wrk to run (default: wrk on the PATH)
              --doc FILE         rewrite FILE between <!-- saturation:begin --> and <!-- saturation:end -->
              --logs DIR         each cell's server, wrk and client output (default: logs/ beside FILE.md)
              --steps-per-us X   the CPU loop's calibration (xorshift steps per microsecond), e.g. from an
                                 earlier report, instead of the first server's: the same work per request
              --command TEXT     the command the report names (default: these arguments)
            Every cell runs twice, GMP (with the agent) and ForkJoinPool (without), alternately.""";

    /** A command line that cannot be run; the message says why. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** @return the options, or empty if help was asked for */
    static Optional<SaturationOptions> parse(List<String> args) throws UsageException {
        SaturationProfile profile = SaturationProfile.FULL;
        Set<Shape> shapes = EnumSet.noneOf(Shape.class);
        String server = null;
        Integer duration = null;
        Path agent = null;
        String wrk = "wrk";
        Path out = null;
        Path doc = null;
        Path logs = null;
        Double steps = null;
        String command = null;
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            switch (arg) {
                case "-h", "--help" -> {
                    return Optional.empty();
                }
                case "--quick", "--smoke" -> {
                    if (profile != SaturationProfile.FULL) {
                        throw new UsageException("--quick and --smoke exclude each other");
                    }
                    profile = arg.equals("--quick") ? SaturationProfile.QUICK : SaturationProfile.SMOKE;
                }
                case "--shape" -> {
                    for (String name : value(args, i++).split(",")) {
                        try {
                            shapes.add(Shape.named(name));
                        } catch (IllegalArgumentException e) {
                            throw new UsageException(e.getMessage());
                        }
                    }
                }
                case "--server" -> {
                    String name = value(args, i++);
                    if (!Plan.SERVERS.contains(name)) {
                        throw new UsageException("no server '" + name + "'; the servers are: " + String.join(" ", Plan.SERVERS));
                    }
                    if (server != null && !server.equals(name)) {
                        throw new UsageException("one --server at most ('" + server + "', then '" + name + "')");
                    }
                    server = name;
                }
                case "--duration" -> duration = seconds(value(args, i++));
                case "--agent" -> agent = Path.of(value(args, i++));
                case "--wrk" -> wrk = value(args, i++);
                case "--out" -> out = Path.of(value(args, i++));
                case "--doc" -> doc = Path.of(value(args, i++));
                case "--logs" -> logs = Path.of(value(args, i++));
                case "--steps-per-us" -> {
                    String value = value(args, i++);
                    try {
                        steps = Double.parseDouble(value);
                    } catch (NumberFormatException e) {
                        steps = Double.NaN;
                    }
                    if (!(steps > 0) || steps.isInfinite()) {
                        throw new UsageException("--steps-per-us takes a number above 0, not '" + value + "'");
                    }
                }
                case "--command" -> command = value(args, i++);
                default -> throw new UsageException("unknown option '" + arg + "'");
            }
        }
        if (agent == null || out == null) {
            throw new UsageException("--agent and --out are required");
        }
        if (!out.toString().endsWith(".md")) {
            throw new UsageException("--out names the Markdown report, a file ending in .md, not '" + out + "'");
        }
        if (doc != null && (profile != SaturationProfile.FULL || !shapes.isEmpty() || server != null || duration != null)) {
            throw new UsageException("--doc (publishing) needs a whole default run: no --quick, --smoke, --shape, --server or --duration");
        }
        Path logsDir = logs != null ? logs : out.toAbsolutePath().resolveSibling("logs");
        return Optional.of(new SaturationOptions(profile, shapes, Optional.ofNullable(server),
                duration == null ? OptionalInt.empty() : OptionalInt.of(duration), agent, wrk, out, Optional.ofNullable(doc),
                logsDir, steps == null ? OptionalDouble.empty() : OptionalDouble.of(steps),
                command != null ? command : "SaturationRunner " + String.join(" ", args)));
    }

    /** The measured window of each cell, seconds. */
    int windowSeconds() {
        return duration.orElse(profile.windowSeconds);
    }

    /** The CSV beside the Markdown report. */
    Path csv() {
        String name = out.getFileName().toString();
        return out.resolveSibling(name.substring(0, name.length() - ".md".length()) + ".csv");
    }

    private static int seconds(String value) throws UsageException {
        try {
            int seconds = Integer.parseInt(value);
            if (seconds >= 1 && seconds <= MAX_DURATION) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new UsageException("--duration takes whole seconds from 1 to " + MAX_DURATION + ", not '" + value + "'");
    }

    private static String value(List<String> args, int i) throws UsageException {
        if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
            throw new UsageException(args.get(i) + " needs a value");
        }
        return args.get(i + 1);
    }
}
