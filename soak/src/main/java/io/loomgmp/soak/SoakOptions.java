package io.loomgmp.soak;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The soak's command line: {@code [--duration D] [--seed N] [--max-procs N] [--progress D] [--help]},
 * each option as {@code --name value} or {@code --name=value}. {@link #parse} checks every value
 * and throws {@link BadArgument} with a message naming the option, the value and what it accepts.
 *
 * @param duration how long the soak runs after its warm-up
 * @param seed     the seed of every random choice the soak makes
 * @param maxProcs the most Ps a resize picks (from 1); the soak starts with
 *                 {@code min(available processors, maxProcs)}
 * @param progress time between progress lines
 * @param help     {@code --help} was given: print {@link #USAGE} and nothing else
 */
record SoakOptions(Duration duration, long seed, int maxProcs, Duration progress, boolean help) {
    static final Duration MIN_DURATION = Duration.ofSeconds(10);
    static final Duration MAX_DURATION = Duration.ofDays(7);
    static final int MAX_PROCS_LIMIT = 32;
    static final Duration MIN_PROGRESS = Duration.ofSeconds(1);

    static final String USAGE = """
            usage: ./loomgmp soak [--duration D] [--seed N] [--max-procs N] [--progress D]
               or: java -javaagent:loom-bridge/target/loom-gmp-agent.jar -jar soak/target/loom-gmp-soak.jar [options]

            Runs everything at once on a GMP scheduler of its own, after an 8 s warm-up: plain tasks
            submitted with every placement from platform threads, carriers and virtual threads;
            timers due at once, soon and far, some cancelled; virtual threads that sleep, park with
            a timeout that an unpark may cut short, wait on a monitor, compute for many time slices
            (preempted at the agent's polls) or pin their carrier in a class initialiser; tasks that
            block their carrier or compute; setProcs resizes; carrier failures injected in the
            scheduling loop, refused carrier starts and failed timer moves; and JFR recordings
            started and stopped. A progress line every few seconds; a summary at the end.

            It checks that every task ran exactly once; that every timer not cancelled fired, none
            early, and no cancelled one ran; that every virtual thread ended, and no timed park or
            sleep returned early; that every injected failure was reported once and every
            exception a task threw reached the handler once; that, at rest after the soak, the
            carriers (spare ones retire after a 1 s keep-alive) and the heap after a collection
            are back to what they were after the warm-up; and that close() ends every carrier.

              --duration D    how long to soak, after the warm-up: 90s, 30m, 2h (default 10m; 10s to 7d)
              --seed N        the seed of every random choice (default: a new one, printed). The same
                              seed makes the same choices; the scheduler's interleavings still differ.
              --max-procs N   resizes pick from 1 to N Ps (default 4; at most 32)
              --progress D    time between progress lines (default 5s; at least 1s)
              -h, --help      this text

            Exit status: 0 if every check held; 1 if one failed, or the run got stuck (then the
            scheduler's snapshot and a thread dump are printed); 2 for a bad argument or a JVM
            that cannot run the soak (no loom-gmp agent).
            """;

    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h|d)");

    /** A command-line argument the soak cannot take; the message says which and why. */
    static final class BadArgument extends Exception {
        private static final long serialVersionUID = 1L;

        BadArgument(String message) {
            super(message);
        }
    }

    /**
     * @throws BadArgument for an unknown option, a missing value, or a value out of range
     */
    static SoakOptions parse(String... args) throws BadArgument {
        Duration duration = Duration.ofMinutes(10);
        Long seed = null;
        int maxProcs = 4;
        Duration progress = Duration.ofSeconds(5);
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("-h") || arg.equals("--help")) {
                return new SoakOptions(duration, 0, maxProcs, progress, true);
            }
            int eq = arg.indexOf('=');
            String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
            String value;
            switch (name) {
                case "--duration", "--seed", "--max-procs", "--progress" -> {
                    if (eq > 0 && arg.startsWith("--")) {
                        value = arg.substring(eq + 1);
                    } else if (i + 1 < args.length) {
                        value = args[++i];
                    } else {
                        throw new BadArgument(name + " needs a value");
                    }
                }
                default -> throw new BadArgument(arg.startsWith("-") ? "unknown option '" + arg + "'"
                        : "unexpected argument '" + arg + "': each value follows its option, as in --duration 30m");
            }
            switch (name) {
                case "--duration" -> duration = duration(name, value, MIN_DURATION, MAX_DURATION);
                case "--progress" -> progress = duration(name, value, MIN_PROGRESS, MAX_DURATION);
                case "--seed" -> {
                    try {
                        seed = Long.parseLong(value);
                    } catch (NumberFormatException e) {
                        throw new BadArgument("--seed takes a whole number (a long), was '" + value + "'");
                    }
                }
                default -> { // --max-procs
                    try {
                        maxProcs = Integer.parseInt(value);
                    } catch (NumberFormatException e) {
                        maxProcs = -1;
                    }
                    if (maxProcs < 1 || maxProcs > MAX_PROCS_LIMIT) {
                        throw new BadArgument("--max-procs takes a number from 1 to " + MAX_PROCS_LIMIT + ", was '" + value + "'");
                    }
                }
            }
        }
        return new SoakOptions(duration, seed != null ? seed : ThreadLocalRandom.current().nextLong(), maxProcs, progress, false);
    }

    private static Duration duration(String name, String value, Duration min, Duration max) throws BadArgument {
        Matcher m = DURATION.matcher(value);
        if (!m.matches()) {
            throw new BadArgument(name + " takes a number and a unit (ms, s, m, h or d), like 90s or 30m, was '" + value + "'");
        }
        long amount = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new BadArgument(name + " must be from " + text(min) + " to " + text(max) + ", was '" + value + "'");
        }
        return d;
    }

    /** A duration as the options write it: {@code 10s}, {@code 30m}, {@code 7d}. */
    static String text(Duration d) {
        if (d.toMillis() % 1000 != 0) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        return s % 86_400 == 0 ? s / 86_400 + "d" : s % 3_600 == 0 ? s / 3_600 + "h" : s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
