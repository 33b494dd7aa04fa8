package io.loomgmp.benchmarks;

import org.HdrHistogram.Histogram;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Reports the {@link Latencies} recorded during each iteration as JMH secondary results:
 * {@code ·<name>.p50} and {@code ·<name>.p99} in milliseconds. Each is one value per iteration,
 * which JMH averages over iterations and forks with its usual error bars (the 99.9 % confidence
 * interval), so a percentile gets an error bar as the primary score does; JMH's own sample mode
 * gives percentiles without one. Enable with {@code -prof io.loomgmp.benchmarks.LatencyProfiler}
 * (the runner always does).
 */
public final class LatencyProfiler implements InternalProfiler {
    private static final double[] PERCENTILES = {50, 99};

    @Override
    public String getDescription() {
        return "latency percentiles that the loom-gmp benchmarks record, per iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        Latencies.takeIntervals(); // drops what set-up and earlier iterations recorded
    }

    @Override
    @SuppressWarnings("rawtypes") // InternalProfiler's own signature
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        List<ScalarResult> results = new ArrayList<>();
        for (Map.Entry<String, Histogram> interval : Latencies.takeIntervals().entrySet()) {
            Histogram histogram = interval.getValue();
            if (histogram.getTotalCount() == 0) {
                continue;
            }
            for (double percentile : PERCENTILES) {
                results.add(new ScalarResult("·" + interval.getKey() + ".p" + (int) percentile,
                        histogram.getValueAtPercentile(percentile) / 1e6, "ms", AggregationPolicy.AVG));
            }
        }
        return results;
    }
}
