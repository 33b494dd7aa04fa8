package io.loomgmp.benchmarks.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One JMH score: its value, its error (JMH's half-width of the 99.9 % confidence interval; NaN when
 * there were too few iterations to compute one) and its unit, and each fork's mean alone (empty
 * when the result file has no per-fork data).
 */
record Score(double value, double error, String unit, List<Score> forks) {
    /** JMH's time units ({@code TimeValue.tuToString}) in nanoseconds. */
    private static final Map<String, Double> NANOS = Map.of("ns", 1.0, "us", 1e3, "ms", 1e6, "s", 1e9, "min", 60e9,
            "hr", 3600e9, "day", 86400e9);

    /** How far apart (relative to the score) the forks' means must be for the report to show them. */
    static final double FORK_SPREAD = 0.10;

    Score(double value, double error, String unit) {
        this(value, error, unit, List.of());
    }

    /** Throughput ({@code ops/s}, {@code ops/ms}) is better higher; times and latencies lower. */
    boolean higherIsBetter() {
        return unit.startsWith("ops/");
    }

    boolean hasError() {
        return !Double.isNaN(error) && !Double.isInfinite(error);
    }

    double low() {
        return value - (hasError() ? error : 0);
    }

    double high() {
        return value + (hasError() ? error : 0);
    }

    /** "812 ± 40" or "1.16 ± 0.05": the error to as many decimals as the value. */
    String text() {
        int decimals = decimals(value);
        return format(value, decimals) + " ± " + (hasError() ? format(error, decimals) : "n/a");
    }

    /**
     * Whether the forks disagree: their means spread over more than {@value #FORK_SPREAD} of the
     * score. A JVM can settle in one mode or another for its whole life (which carrier runs what,
     * which core sleeps), and then the mean of the forks describes none of them; a few per cent
     * between forks is ordinary and not shown.
     */
    boolean forksDisagree() {
        if (forks.size() < 2) {
            return false;
        }
        double min = forks.stream().mapToDouble(Score::value).min().orElseThrow();
        double max = forks.stream().mapToDouble(Score::value).max().orElseThrow();
        return max - min > FORK_SPREAD * Math.abs(value);
    }

    /** {@link #text()}, then each fork's mean when the forks disagree: "1,425 ± 513 (forks 980 / 1,870)". */
    String textWithForks() {
        if (!forksDisagree()) {
            return text();
        }
        int decimals = decimals(value);
        return text() + " (forks " + forks.stream().map(fork -> format(fork.value(), decimals))
                .collect(Collectors.joining(" / ")) + ")";
    }

    /**
     * This score as a time per operation in {@code perOpUnit} ("ns/op", "us/op", ...): a time per
     * operation converted, a throughput inverted (the mean of the inverse taken as the inverse of
     * the mean, the relative error kept).
     *
     * @throws IllegalArgumentException for a unit that is neither time per op nor ops per time
     */
    Score perOp(String perOpUnit) {
        double target = nanos(perOpUnit, "/op", true);
        double perOp;
        if (unit.endsWith("/op")) {
            perOp = value * nanos(unit, "/op", true) / target;
        } else if (unit.startsWith("ops/")) {
            perOp = nanos(unit, "ops/", false) / value / target;
        } else {
            throw new IllegalArgumentException("\"" + unit + "\" is neither a time per op nor a throughput");
        }
        return new Score(perOp, hasError() ? perOp * error / value : Double.NaN, perOpUnit,
                forks.stream().map(fork -> fork.perOp(perOpUnit)).toList());
    }

    /** The nanoseconds of the time unit in "ms/op" (suffix "/op") or "ops/ms" (prefix "ops/"). */
    private static double nanos(String unit, String affix, boolean suffix) {
        String timeUnit = suffix ? (unit.endsWith(affix) ? unit.substring(0, unit.length() - affix.length()) : "")
                : (unit.startsWith(affix) ? unit.substring(affix.length()) : "");
        Double nanos = NANOS.get(timeUnit);
        if (nanos == null) {
            throw new IllegalArgumentException("unknown time unit in \"" + unit + "\"");
        }
        return nanos;
    }

    /** Decimals for about three significant digits, none from 100 up. */
    static int decimals(double value) {
        double a = Math.abs(value);
        if (a >= 100 || a == 0 || Double.isNaN(a) || Double.isInfinite(a)) {
            return 0;
        }
        return Math.max(0, 2 - (int) Math.floor(Math.log10(a)));
    }

    static String format(double value, int decimals) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        return String.format(Locale.ROOT, decimals == 0 ? "%,.0f" : "%." + decimals + "f", value);
    }
}
