package io.loomgmp.benchmarks;

import io.loomgmp.dispatcher.GmpScheduler;
import org.openjdk.jmh.annotations.Param;

/**
 * Issue 13's cost question: {@link DispatcherBenchmark}'s round trip and burst with the
 * scheduling-latency sampling of the dispatcher at Go's one task in 8 (the default), every task
 * ({@code 1}) and off ({@code 0}). Compare the GMP rows across {@code latencySample}; the FJP rows
 * are the same ForkJoinPool each time (it samples nothing). For virtual threads under the agent,
 * the same switch is {@code -Dgmp.latency.sample=N} on the forks' command line.
 */
public class LatencySampleCostBenchmark extends DispatcherBenchmark {
    @Param({"8", "1", "0"})
    public int latencySample;

    @Override
    protected GmpScheduler.Builder configure(GmpScheduler.Builder builder) {
        return builder.latencySample(latencySample);
    }
}
