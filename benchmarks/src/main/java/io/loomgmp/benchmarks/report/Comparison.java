package io.loomgmp.benchmarks.report;

import io.loomgmp.benchmarks.ProcessCpuProfiler;

import java.util.Optional;

/**
 * One line of the report: a metric of a benchmark (its primary score or a latency percentile),
 * measured with GMP and with ForkJoinPool.
 *
 * @param benchmark the JMH name, {@code io.loomgmp.benchmarks.SkynetBenchmark.tree}
 * @param params JMH parameters other than {@code scheduler}, as "leaves=1000000", or ""
 * @param metric "" for the primary score, else the secondary result's name ("lateness.p99")
 * @param gmp the score with {@code scheduler=gmp}, if that run exists
 * @param fjp the score with {@code scheduler=fjp}, if that run exists
 */
record Comparison(String benchmark, String mode, String params, String metric, Optional<Score> gmp,
                  Optional<Score> fjp) {

    /** Whether this is one of {@link ProcessCpuProfiler}'s metrics, which the CPU table shows. */
    boolean isCpu() {
        return metric.equals(ProcessCpuProfiler.CPU_PER_OP) || metric.equals(ProcessCpuProfiler.CORES);
    }

    /** Whether {@code other} is a metric of the same runs: the same benchmark, mode and parameters. */
    boolean sameRuns(Comparison other) {
        return benchmark.equals(other.benchmark) && mode.equals(other.mode) && params.equals(other.params);
    }

    /**
     * The value of parameter {@code name} as a whole number.
     *
     * @throws IllegalArgumentException if these runs have no such parameter, or not a number
     */
    int intParam(String name) {
        for (String param : params.split(", ")) {
            if (param.startsWith(name + "=")) {
                try {
                    return Integer.parseInt(param.substring(name.length() + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException(label() + ": " + param + " is not a whole number", e);
                }
            }
        }
        throw new IllegalArgumentException(label() + " has no parameter " + name);
    }

    /** "Skynet.tree (leaves=1000000)". */
    String label() {
        return Report.shortName(benchmark) + (params.isEmpty() ? "" : " (" + params + ")");
    }

    /** "time/op", "throughput" or "lateness p99". */
    String metricLabel() {
        if (!metric.isEmpty()) {
            return metric.replace('.', ' ');
        }
        return switch (mode) {
            case "thrpt" -> "throughput";
            case "avgt" -> "time/op";
            case "sample" -> "sampled time/op";
            case "ss" -> "single-shot time";
            default -> mode;
        };
    }

    String unit() {
        return gmp.or(() -> fjp).map(Score::unit).orElse("");
    }

    boolean complete() {
        return gmp.isPresent() && fjp.isPresent();
    }

    /** GMP / FJP. */
    double ratio() {
        return gmp.orElseThrow().value() / fjp.orElseThrow().value();
    }

    /** The ratio's error, from the two relative errors in quadrature; NaN if either has none. */
    double ratioError() {
        Score g = gmp.orElseThrow();
        Score f = fjp.orElseThrow();
        if (!g.hasError() || !f.hasError()) {
            return Double.NaN;
        }
        return Math.abs(ratio()) * Math.hypot(g.error() / g.value(), f.error() / f.value());
    }

    /**
     * GMP's cost relative to FJP, so that below 1 always means GMP did better: the ratio for
     * times and latencies, its inverse for throughput.
     */
    double costRatio() {
        return gmp.orElseThrow().higherIsBetter() ? 1 / ratio() : ratio();
    }

    /** The cost ratio's error: the same relative error as the ratio's. */
    double costRatioError() {
        return costRatio() * ratioError() / ratio();
    }

    /** "GMP better", "FJP better", "within error" (the confidence intervals overlap), or "no error bars". */
    String verdict() {
        Score g = gmp.orElseThrow();
        Score f = fjp.orElseThrow();
        if (!g.hasError() || !f.hasError()) {
            return "no error bars";
        }
        if (g.low() <= f.high() && f.low() <= g.high()) {
            return "within error";
        }
        boolean gmpHigher = g.value() > f.value();
        return gmpHigher == g.higherIsBetter() ? "GMP better" : "FJP better";
    }
}
