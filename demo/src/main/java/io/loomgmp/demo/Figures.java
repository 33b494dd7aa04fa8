package io.loomgmp.demo;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Locale;

/** How the demo writes a measured figure: three significant digits or more, never rounded to zero. */
final class Figures {
    private Figures() {
    }

    static String of(double value) {
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 1_000 ? "%,.0f" : magnitude >= 100 ? "%.0f" : magnitude >= 10 ? "%.1f"
                : magnitude >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, pattern, value);
    }

    /** A count: 52,634. */
    static String count(double value) {
        return String.format(Locale.ROOT, "%,d", Math.round(value));
    }

    /** Microseconds as milliseconds, or "none" for the -1 a workload prints when nothing was measured. */
    static String millis(double micros) {
        return micros < 0 ? "none" : of(micros / 1_000);
    }

    /** A duration given in the code, in µs, as plain milliseconds: 100 µs is "0.1". */
    static String plainMillis(long micros) {
        return BigDecimal.valueOf(micros, 3).stripTrailingZeros().toPlainString();
    }

    /** A duration given in the code, in whole seconds when it is: "3 s", "1.5 s". */
    static String seconds(Duration duration) {
        return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
    }

    /** {@code gmp / fjp}, or "-" when either is not a figure (none, starved) or FJP's is 0. */
    static String ratio(double gmp, double fjp) {
        if (gmp < 0 || fjp <= 0) {
            return "-";
        }
        double ratio = gmp / fjp;
        return String.format(Locale.ROOT, ratio >= 100 ? "%,.0f" : ratio >= 10 ? "%.1f" : "%.2f", ratio);
    }
}
