package io.loomgmp.bridge.agent;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The agent's settings, from system properties and agent arguments
 * ({@code -javaagent:loom-gmp-agent.jar=parallelism=4,timeslice=5ms}); an agent argument wins over
 * the property of the same setting. What each accepts and its default: {@link AgentSetting}.
 * As in the JDK, a {@code maxPoolSize} below {@code parallelism} lowers the parallelism. The JDK
 * properties are checked even when an agent argument overrides them, because the JDK still reads
 * them to build its (unused) ForkJoinPool, and fails on a value it cannot take.
 *
 * <p>Prefixes are separated by {@code ;} because agent arguments are separated by {@code ,}. Each
 * is a dotted Java name compared with the start of a class's binary name, so {@code com.acme.}
 * means the package {@code com.acme} and its subpackages (see {@link PreemptionPolls}).
 */
record AgentSettings(int parallelism, int maxPoolSize, Duration timeSlice, Duration keepAlive, long schedtraceMillis,
                     int latencySample, boolean preempt, List<String> preemptInclude, List<String> preemptExclude, boolean mxbean,
                     boolean timers, boolean verbose, boolean strict) {
    static final String PARALLELISM = AgentSetting.PARALLELISM.property;
    static final String MAX_POOL_SIZE = AgentSetting.MAX_POOL_SIZE.property;
    static final String KEEPALIVE = AgentSetting.KEEPALIVE.property;
    static final String LATENCY_SAMPLE = AgentSetting.LATENCY_SAMPLE.property;
    static final String PREEMPT = AgentSetting.PREEMPT.property;
    static final String PREEMPT_INCLUDE = AgentSetting.PREEMPT_INCLUDE.property;
    static final String PREEMPT_EXCLUDE = AgentSetting.PREEMPT_EXCLUDE.property;
    static final String MXBEAN = AgentSetting.MXBEAN.property;
    static final String TIMERS = AgentSetting.TIMERS.property;
    static final String VERBOSE = AgentSetting.VERBOSE.property;
    static final String STRICT = AgentSetting.STRICT.property;
    /** ForkJoinPool's limit, which the JDK applies to the same properties. */
    static final int MAX_PARALLELISM = 0x7fff;
    /** The largest {@code latency.sample}, as {@code GmpScheduler.Builder.latencySample} takes it. */
    static final int MAX_LATENCY_SAMPLE = 1_000_000;

    // The checks below are written out rather than as regular expressions or streams: this
    // runs in every JVM's start-up, and java.util.regex alone cost it a few milliseconds.

    AgentSettings {
        preemptInclude = List.copyOf(preemptInclude);
        preemptExclude = List.copyOf(preemptExclude);
    }

    /** A setting with a value it cannot take; the message is the one line printed at start-up. */
    static final class BadSetting extends RuntimeException {
        BadSetting(String message) {
            super(message);
        }
    }

    /**
     * @param agentArguments the text after {@code =} in {@code -javaagent:jar=...}, or null
     * @throws BadSetting naming the setting, the value and what is accepted
     */
    static AgentSettings parse(String agentArguments, Properties properties, int availableProcessors) {
        Map<AgentSetting, String> values = new EnumMap<>(AgentSetting.class); // raw values
        for (AgentSetting setting : AgentSetting.values()) {
            String value = properties.getProperty(setting.property);
            if (value != null) {
                check(setting, value, "system property " + setting.property);
                values.put(setting, value);
            }
        }
        if (agentArguments != null && !agentArguments.isBlank()) {
            for (String argument : agentArguments.split(",")) {
                int eq = argument.indexOf('=');
                String key = (eq < 0 ? argument : argument.substring(0, eq)).trim();
                AgentSetting setting = null;
                for (AgentSetting candidate : AgentSetting.values()) {
                    if (candidate.argument.equals(key)) {
                        setting = candidate;
                    }
                }
                if (setting == null || eq < 0) {
                    throw new BadSetting("loom-gmp: unknown agent argument \"" + argument.trim()
                            + "\"; accepted: " + acceptedArguments());
                }
                String value = argument.substring(eq + 1).trim();
                check(setting, value, "agent argument " + key);
                values.put(setting, value);
            }
        }
        int parallelism = values.containsKey(AgentSetting.PARALLELISM)
                ? Integer.parseInt(values.get(AgentSetting.PARALLELISM)) : Math.min(availableProcessors, MAX_PARALLELISM);
        int maxPoolSize;
        if (values.containsKey(AgentSetting.MAX_POOL_SIZE)) {
            maxPoolSize = Integer.parseInt(values.get(AgentSetting.MAX_POOL_SIZE));
            parallelism = Math.min(parallelism, maxPoolSize);
        } else {
            maxPoolSize = Math.max(parallelism, 256);
        }
        Duration timeSlice = values.containsKey(AgentSetting.TIMESLICE)
                ? duration(values.get(AgentSetting.TIMESLICE)) : Duration.ofMillis(10);
        Duration keepAlive = values.containsKey(AgentSetting.KEEPALIVE)
                ? duration(values.get(AgentSetting.KEEPALIVE)) : Duration.ofSeconds(30);
        long schedtrace = values.containsKey(AgentSetting.SCHEDTRACE) ? Long.parseLong(values.get(AgentSetting.SCHEDTRACE)) : 0;
        int latencySample = values.containsKey(AgentSetting.LATENCY_SAMPLE)
                ? Integer.parseInt(values.get(AgentSetting.LATENCY_SAMPLE)) : Integer.parseInt(AgentSetting.LATENCY_SAMPLE.defaultValue);
        boolean preempt = !"false".equals(values.get(AgentSetting.PREEMPT));
        boolean mxbean = !"false".equals(values.get(AgentSetting.MXBEAN));
        boolean timers = !"false".equals(values.get(AgentSetting.TIMERS));
        boolean verbose = "true".equals(values.get(AgentSetting.VERBOSE));
        boolean strict = "true".equals(values.get(AgentSetting.STRICT));
        return new AgentSettings(parallelism, maxPoolSize, timeSlice, keepAlive, schedtrace, latencySample, preempt,
                prefixes(values.get(AgentSetting.PREEMPT_INCLUDE)), prefixes(values.get(AgentSetting.PREEMPT_EXCLUDE)),
                mxbean, timers, verbose, strict);
    }

    /** These settings, but with the timers the agent could install (see GmpAgent). */
    AgentSettings withTimers(boolean timersInForce) {
        return new AgentSettings(parallelism, maxPoolSize, timeSlice, keepAlive, schedtraceMillis, latencySample, preempt,
                preemptInclude, preemptExclude, mxbean, timersInForce, verbose, strict);
    }

    /**
     * The settings in force, as agent arguments in {@link AgentSetting}'s order:
     * {@code parallelism=2,maxPoolSize=256,timeslice=10ms,...} (an empty prefix list: nothing after {@code =}).
     */
    String inForce() {
        Map<AgentSetting, String> shown = new EnumMap<>(AgentSetting.class);
        shown.put(AgentSetting.PARALLELISM, String.valueOf(parallelism));
        shown.put(AgentSetting.MAX_POOL_SIZE, String.valueOf(maxPoolSize));
        shown.put(AgentSetting.TIMESLICE, text(timeSlice));
        shown.put(AgentSetting.KEEPALIVE, text(keepAlive));
        shown.put(AgentSetting.SCHEDTRACE, String.valueOf(schedtraceMillis));
        shown.put(AgentSetting.LATENCY_SAMPLE, String.valueOf(latencySample));
        shown.put(AgentSetting.PREEMPT, String.valueOf(preempt));
        shown.put(AgentSetting.PREEMPT_INCLUDE, String.join(";", preemptInclude));
        shown.put(AgentSetting.PREEMPT_EXCLUDE, String.join(";", preemptExclude));
        shown.put(AgentSetting.MXBEAN, String.valueOf(mxbean));
        shown.put(AgentSetting.TIMERS, String.valueOf(timers));
        shown.put(AgentSetting.VERBOSE, String.valueOf(verbose));
        shown.put(AgentSetting.STRICT, String.valueOf(strict));
        if (shown.size() != AgentSetting.values().length) {
            throw new IllegalStateException("a setting is missing from inForce(): " + shown.keySet());
        }
        StringBuilder line = new StringBuilder();
        for (Map.Entry<AgentSetting, String> setting : shown.entrySet()) {
            line.append(line.isEmpty() ? "" : ",").append(setting.getKey().argument).append('=').append(setting.getValue());
        }
        return line.toString();
    }

    /** Every agent argument with the form of its value, for the error line. */
    private static String acceptedArguments() {
        StringBuilder accepted = new StringBuilder();
        for (AgentSetting setting : AgentSetting.values()) {
            accepted.append(accepted.isEmpty() ? "" : ", ").append(setting.argumentForm());
        }
        return accepted.toString();
    }

    /** A duration in the largest unit that shows it whole: 10ms, 30s, 500us, 700ns. */
    private static String text(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos % 1_000_000_000L == 0) {
            return nanos / 1_000_000_000L + "s";
        } else if (nanos % 1_000_000L == 0) {
            return nanos / 1_000_000L + "ms";
        } else if (nanos % 1_000L == 0) {
            return nanos / 1_000L + "us";
        }
        return nanos + "ns";
    }

    private static void check(AgentSetting setting, String value, String source) {
        switch (setting) {
            case PARALLELISM, MAX_POOL_SIZE -> {
                if (!digits(value, 5) || Integer.parseInt(value) < 1 || Integer.parseInt(value) > MAX_PARALLELISM) {
                    throw bad(source, value, "a whole number from 1 to " + MAX_PARALLELISM);
                }
            }
            case TIMESLICE, KEEPALIVE -> {
                boolean positive;
                try {
                    Duration duration = durationOrNull(value);
                    positive = duration != null && !duration.isZero();
                } catch (ArithmeticException tooLarge) {
                    positive = false;
                }
                if (!positive) {
                    throw bad(source, value, "a positive duration with a unit: ns, us, ms or s (e.g. "
                            + (setting == AgentSetting.TIMESLICE ? "10ms" : "30s") + ")");
                }
            }
            case SCHEDTRACE -> {
                if (!digits(value, 9)) {
                    throw bad(source, value, "milliseconds between lines, a whole number (0 turns it off)");
                }
            }
            case LATENCY_SAMPLE -> {
                if (!value.matches("\\d{1,7}") || Integer.parseInt(value) > MAX_LATENCY_SAMPLE) {
                    throw bad(source, value, "a whole number from 0 to " + MAX_LATENCY_SAMPLE
                            + ": about one task in N is timed (1 times every task, 0 turns sampling off)");
                }
            }
            case PREEMPT, MXBEAN, TIMERS, VERBOSE, STRICT -> {
                if (!value.equals("true") && !value.equals("false")) {
                    throw bad(source, value, "true or false");
                }
            }
            case PREEMPT_INCLUDE, PREEMPT_EXCLUDE -> {
                // -1: keep empty items, so that "a.;;b." and a trailing ";" are refused, not ignored.
                for (String prefix : value.split(";", -1)) {
                    if (!isDottedName(prefix)) {
                        throw bad(source, value, "package prefixes separated by ';' such as com.acme.;org.example."
                                + " (\"" + prefix + "\" is not a dotted Java name)");
                    }
                }
            }
            default -> throw new IllegalArgumentException("no check for " + setting);
        }
    }

    /** A checked list of prefixes, or none. */
    private static List<String> prefixes(String value) {
        return value == null ? List.of() : List.of(value.split(";"));
    }

    /** A checked duration. */
    private static Duration duration(String value) {
        Duration duration = durationOrNull(value);
        if (duration == null) {
            throw new IllegalArgumentException(value);
        }
        return duration;
    }

    /**
     * 1 to 18 digits then a unit, ns, us, ms or s ({@code 10ms}); null if the value is not that.
     *
     * @throws ArithmeticException if it does not fit a Duration's nanoseconds where it has to
     */
    private static Duration durationOrNull(String value) {
        int unit = 0;
        while (unit < value.length() && value.charAt(unit) >= '0' && value.charAt(unit) <= '9') {
            unit++;
        }
        if (!digits(value.substring(0, unit), 18)) {
            return null;
        }
        long amount = Long.parseLong(value.substring(0, unit));
        return switch (value.substring(unit)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1_000L));
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> null;
        };
    }

    /** 1 to {@code most} ASCII digits, nothing else. */
    private static boolean digits(String value, int most) {
        if (value.isEmpty() || value.length() > most) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    /** A dotted Java name, optionally ending with a dot: {@code com.acme.}, {@code com.acme.Main}. */
    private static boolean isDottedName(String value) {
        boolean partStart = true; // at the start of a name part, where a Java identifier must start
        for (int i = 0; i < value.length(); ) {
            int c = value.codePointAt(i);
            if (partStart) {
                if (!Character.isJavaIdentifierStart(c)) {
                    return false;
                }
                partStart = false;
            } else if (c == '.') {
                partStart = true;
            } else if (!Character.isJavaIdentifierPart(c)) {
                return false;
            }
            i += Character.charCount(c);
        }
        // A part that starts with a dot was refused above ("com..", "."), so a dot may end it only
        // after a name ("com.acme."); an empty value is no name at all.
        return !value.isEmpty();
    }

    private static BadSetting bad(String source, String value, String accepted) {
        return new BadSetting("loom-gmp: bad value \"" + value + "\" for " + source + ": expected " + accepted);
    }
}
