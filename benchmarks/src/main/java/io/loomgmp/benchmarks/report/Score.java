package io.loomgmp.benchmarks.report;

import java.util.Locale;

/**
 * One JMH score: its value, its error (JMH's half-width of the 99.9 % confidence interval; NaN when
 * there were too few iterations to compute one) and its unit.
 */
record Score(double value, double error, String unit) {

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
