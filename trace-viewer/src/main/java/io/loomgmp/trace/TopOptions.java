package io.loomgmp.trace;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The arguments of {@code loomgmp top}. Every mistake is an {@link IllegalArgumentException}
 * whose message is the one line the console prints (then its usage, exit status 2): nothing is
 * guessed or silently corrected.
 *
 * @param pid      the JVM to watch
 * @param help     {@code -h}/{@code --help}: print the usage and exit
 * @param frames   frames to print before exiting (non-interactive: {@code --once} is 1); 0 runs
 *                 until {@code q}, with keys
 * @param interval time between refreshes
 * @param traceNow trace at once, for this long ({@code --trace}), or null
 * @param traceFor how long {@code t} traces: {@code --trace}'s duration, else 5 s
 */
record TopOptions(long pid, boolean help, int frames, Duration interval, Duration traceNow, Duration traceFor) {
    static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);
    /** Shortest refresh: each costs the target a snapshot per attribute read. */
    static final Duration MIN_INTERVAL = Duration.ofMillis(100);
    static final Duration MIN_TRACE = Duration.ofMillis(100);
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)?");

    /** Whether the console runs until {@code q} and takes keys. */
    boolean interactive() {
        return frames == 0;
    }

    static TopOptions parse(String... args) {
        Long pid = null;
        Integer frames = null;
        boolean once = false;
        Duration interval = null;
        Duration trace = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h", "--help" -> {
                    return new TopOptions(0, true, 0, DEFAULT_INTERVAL, null, LiveTrace.DEFAULT_DURATION);
                }
                case "--once" -> {
                    if (once) {
                        throw new IllegalArgumentException("--once given twice");
                    }
                    once = true;
                }
                case "--frames" -> {
                    if (frames != null) {
                        throw new IllegalArgumentException("--frames given twice");
                    }
                    frames = count(value(args, ++i, a, "a number of frames, e.g. --frames 5"));
                }
                case "--interval" -> {
                    if (interval != null) {
                        throw new IllegalArgumentException("--interval given twice");
                    }
                    interval = duration(value(args, ++i, a, "a duration, e.g. --interval 2s"), a);
                    if (interval.compareTo(MIN_INTERVAL) < 0) {
                        throw new IllegalArgumentException("--interval " + args[i] + " is too short: at least "
                                + MIN_INTERVAL.toMillis() + "ms");
                    }
                }
                case "--trace" -> {
                    if (trace != null) {
                        throw new IllegalArgumentException("--trace given twice");
                    }
                    trace = duration(value(args, ++i, a, "a duration, e.g. --trace 5s"), a);
                    if (trace.compareTo(MIN_TRACE) < 0 || trace.compareTo(LiveTrace.MAX_DURATION) > 0) {
                        throw new IllegalArgumentException("--trace " + args[i] + " is out of range: from "
                                + MIN_TRACE.toMillis() + "ms to " + LiveTrace.MAX_DURATION.toSeconds()
                                + "s (tracing costs the JVM a few events per task run)");
                    }
                }
                default -> {
                    if (a.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option '" + a + "'");
                    }
                    if (pid != null) {
                        throw new IllegalArgumentException("unexpected argument '" + a + "' (top watches one JVM, pid "
                                + pid + ")");
                    }
                    pid = pid(a);
                }
            }
        }
        if (pid == null) {
            throw new IllegalArgumentException("top needs the pid of a JVM running loom-gmp (jps lists the JVMs)");
        }
        if (once && frames != null) {
            throw new IllegalArgumentException("--once and --frames exclude each other (--once is --frames 1)");
        }
        return new TopOptions(pid, false, once ? 1 : frames == null ? 0 : frames,
                interval == null ? DEFAULT_INTERVAL : interval, trace,
                trace == null ? LiveTrace.DEFAULT_DURATION : trace);
    }

    private static String value(String[] args, int i, String option, String what) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs " + what);
        }
        return args[i];
    }

    private static long pid(String text) {
        long pid;
        try {
            pid = Long.parseLong(text);
        } catch (NumberFormatException e) {
            pid = -1;
        }
        if (pid <= 0 || !text.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("bad pid '" + text + "': a process id is a positive whole number"
                    + " (jps lists the JVMs)");
        }
        return pid;
    }

    private static int count(String text) {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            n = -1;
        }
        if (n < 1 || !text.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("bad number of frames '" + text + "': a whole number, at least 1");
        }
        return n;
    }

    /** 5s, 500ms, 1m, or a number of seconds. */
    static Duration duration(String text, String option) {
        Matcher m = DURATION.matcher(text);
        if (!m.matches()) {
            throw new IllegalArgumentException("bad duration '" + text + "' for " + option
                    + ": write e.g. 5s, 500ms or 1m");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofSeconds(n);
        };
    }
}
