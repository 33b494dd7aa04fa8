package io.loomgmp.bridge;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The agent's settings, from system properties and agent arguments
 * ({@code -javaagent:loom-gmp-agent.jar=parallelism=4,timeslice=5ms}); an agent argument wins over
 * the property of the same setting.
 *
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>agent argument</th><th>system property</th><th>accepted</th><th>default</th></tr>
 *   <tr><td>parallelism</td><td>jdk.virtualThreadScheduler.parallelism</td><td>1 to 32767</td><td>available processors</td></tr>
 *   <tr><td>maxPoolSize</td><td>jdk.virtualThreadScheduler.maxPoolSize</td><td>1 to 32767</td><td>max(parallelism, 256)</td></tr>
 *   <tr><td>timeslice</td><td>gmp.timeslice</td><td>a positive duration: 10ms, 500us, 1s</td><td>10ms</td></tr>
 *   <tr><td>keepalive</td><td>gmp.keepalive</td><td>a positive duration: how long a spare idle carrier lives</td><td>30s</td></tr>
 *   <tr><td>schedtrace</td><td>gmp.schedtrace</td><td>milliseconds between schedtrace lines, 0 = off</td><td>0</td></tr>
 *   <tr><td>preempt</td><td>gmp.preempt</td><td>true or false: preemption polls at loop back-edges</td><td>true</td></tr>
 *   <tr><td>preempt.include</td><td>gmp.preempt.include</td><td>binary-name prefixes separated by {@code ;}:
 *       only these classes get polls</td><td>every application class</td></tr>
 *   <tr><td>preempt.exclude</td><td>gmp.preempt.exclude</td><td>binary-name prefixes separated by {@code ;}:
 *       these classes get none</td><td>none</td></tr>
 *   <tr><td>mxbean</td><td>gmp.mxbean</td><td>true or false: register the scheduler's MXBean once the
 *       platform MBean server exists</td><td>true</td></tr>
 *   <tr><td>timers</td><td>gmp.timers</td><td>true or false: virtual threads' timeouts (sleep, timed
 *       park and wait) become timers of GMP's Ps instead of the JDK's timer threads</td><td>true</td></tr>
 * </table>
 * As in the JDK, a {@code maxPoolSize} below {@code parallelism} lowers the parallelism. The JDK
 * properties are checked even when an agent argument overrides them, because the JDK still reads
 * them to build its (unused) ForkJoinPool, and fails on a value it cannot take.
 *
 * <p>Prefixes are separated by {@code ;} because agent arguments are separated by {@code ,}. Each
 * is a dotted Java name compared with the start of a class's binary name, so {@code com.acme.}
 * means the package {@code com.acme} and its subpackages (see {@link PreemptionPolls}).
 */
record AgentSettings(int parallelism, int maxPoolSize, Duration timeSlice, Duration keepAlive, long schedtraceMillis,
                     boolean preempt, List<String> preemptInclude, List<String> preemptExclude, boolean mxbean,
                     boolean timers) {
    static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";
    static final String MAX_POOL_SIZE = "jdk.virtualThreadScheduler.maxPoolSize";
    static final String TIMESLICE = "gmp.timeslice";
    static final String KEEPALIVE = "gmp.keepalive";
    static final String SCHEDTRACE = "gmp.schedtrace";
    static final String PREEMPT = "gmp.preempt";
    static final String PREEMPT_INCLUDE = "gmp.preempt.include";
    static final String PREEMPT_EXCLUDE = "gmp.preempt.exclude";
    static final String MXBEAN = "gmp.mxbean";
    static final String TIMERS = "gmp.timers";
    /** ForkJoinPool's limit, which the JDK applies to the same properties. */
    static final int MAX_PARALLELISM = 0x7fff;

    private static final Map<String, String> PROPERTY_OF_ARGUMENT = Map.of(
            "parallelism", PARALLELISM,
            "maxPoolSize", MAX_POOL_SIZE,
            "timeslice", TIMESLICE,
            "keepalive", KEEPALIVE,
            "schedtrace", SCHEDTRACE,
            "preempt", PREEMPT,
            "preempt.include", PREEMPT_INCLUDE,
            "preempt.exclude", PREEMPT_EXCLUDE,
            "mxbean", MXBEAN,
            "timers", TIMERS);
    private static final String ACCEPTED_ARGUMENTS = "parallelism=N, maxPoolSize=N, timeslice=DURATION,"
            + " keepalive=DURATION, schedtrace=MS, preempt=true|false, preempt.include=PREFIXES,"
            + " preempt.exclude=PREFIXES, mxbean=true|false, timers=true|false";
    private static final Pattern DURATION = Pattern.compile("(\\d{1,18})(ns|us|ms|s)");
    /** A dotted Java name, optionally ending with a dot: {@code com.acme.}, {@code com.acme.Main}. */
    private static final Pattern PREFIX = Pattern.compile(
            "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*\\.?");

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
        Map<String, String> values = new LinkedHashMap<>(); // property name -> raw value
        for (String property : PROPERTY_OF_ARGUMENT.values()) {
            String value = properties.getProperty(property);
            if (value != null) {
                check(property, value, "system property " + property);
                values.put(property, value);
            }
        }
        if (agentArguments != null && !agentArguments.isBlank()) {
            for (String argument : agentArguments.split(",")) {
                int eq = argument.indexOf('=');
                String key = (eq < 0 ? argument : argument.substring(0, eq)).trim();
                String property = PROPERTY_OF_ARGUMENT.get(key);
                if (property == null || eq < 0) {
                    throw new BadSetting("loom-gmp: unknown agent argument \"" + argument.trim()
                            + "\"; accepted: " + ACCEPTED_ARGUMENTS);
                }
                String value = argument.substring(eq + 1).trim();
                check(property, value, "agent argument " + key);
                values.put(property, value);
            }
        }
        int parallelism = values.containsKey(PARALLELISM)
                ? Integer.parseInt(values.get(PARALLELISM)) : Math.min(availableProcessors, MAX_PARALLELISM);
        int maxPoolSize;
        if (values.containsKey(MAX_POOL_SIZE)) {
            maxPoolSize = Integer.parseInt(values.get(MAX_POOL_SIZE));
            parallelism = Math.min(parallelism, maxPoolSize);
        } else {
            maxPoolSize = Math.max(parallelism, 256);
        }
        Duration timeSlice = values.containsKey(TIMESLICE) ? duration(values.get(TIMESLICE)) : Duration.ofMillis(10);
        Duration keepAlive = values.containsKey(KEEPALIVE) ? duration(values.get(KEEPALIVE)) : Duration.ofSeconds(30);
        long schedtrace = values.containsKey(SCHEDTRACE) ? Long.parseLong(values.get(SCHEDTRACE)) : 0;
        boolean preempt = !"false".equals(values.get(PREEMPT));
        boolean mxbean = !"false".equals(values.get(MXBEAN));
        boolean timers = !"false".equals(values.get(TIMERS));
        return new AgentSettings(parallelism, maxPoolSize, timeSlice, keepAlive, schedtrace, preempt,
                prefixes(values.get(PREEMPT_INCLUDE)), prefixes(values.get(PREEMPT_EXCLUDE)), mxbean, timers);
    }

    private static void check(String property, String value, String source) {
        switch (property) {
            case PARALLELISM, MAX_POOL_SIZE -> {
                if (!value.matches("\\d{1,5}") || Integer.parseInt(value) < 1 || Integer.parseInt(value) > MAX_PARALLELISM) {
                    throw bad(source, value, "a whole number from 1 to " + MAX_PARALLELISM);
                }
            }
            case TIMESLICE, KEEPALIVE -> {
                boolean positive;
                try {
                    positive = DURATION.matcher(value).matches() && !duration(value).isZero();
                } catch (ArithmeticException tooLarge) {
                    positive = false;
                }
                if (!positive) {
                    throw bad(source, value, "a positive duration with a unit: ns, us, ms or s (e.g. "
                            + (property.equals(TIMESLICE) ? "10ms" : "30s") + ")");
                }
            }
            case SCHEDTRACE -> {
                if (!value.matches("\\d{1,9}")) {
                    throw bad(source, value, "milliseconds between lines, a whole number (0 turns it off)");
                }
            }
            case PREEMPT, MXBEAN, TIMERS -> {
                if (!value.equals("true") && !value.equals("false")) {
                    throw bad(source, value, "true or false");
                }
            }
            case PREEMPT_INCLUDE, PREEMPT_EXCLUDE -> {
                // -1: keep empty items, so that "a.;;b." and a trailing ";" are refused, not ignored.
                for (String prefix : value.split(";", -1)) {
                    if (!PREFIX.matcher(prefix).matches()) {
                        throw bad(source, value, "package prefixes separated by ';' such as com.acme.;org.example."
                                + " (\"" + prefix + "\" is not a dotted Java name)");
                    }
                }
            }
            default -> throw new IllegalArgumentException(property);
        }
    }

    /** A checked list of prefixes, or none. */
    private static List<String> prefixes(String value) {
        return value == null ? List.of() : List.of(value.split(";"));
    }

    private static Duration duration(String value) {
        Matcher m = DURATION.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(value);
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ns" -> Duration.ofNanos(amount);
            case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1_000L));
            case "ms" -> Duration.ofMillis(amount);
            default -> Duration.ofSeconds(amount);
        };
    }

    private static BadSetting bad(String source, String value, String accepted) {
        return new BadSetting("loom-gmp: bad value \"" + value + "\" for " + source + ": expected " + accepted);
    }
}
