package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * CPU time beside wall time: reads the fork's process CPU time ({@link ProcessCpuClock}) and the
 * wall clock before and after each iteration, and reports two secondary results per iteration,
 * which JMH averages over iterations and forks with its usual error bars:
 * <ul>
 *   <li>{@code ·cpu/op}: CPU time per operation: the CPU time of the iteration over its
 *       operations. In the benchmark's own unit for the time modes ({@code ns/op} beside a
 *       {@code ns/op} score), in {@code ns/op} for throughput;</li>
 *   <li>{@code ·cores}: the CPU time over the wall time of the same window: how many cores the
 *       process kept busy on average (2 on a 2-core machine means both, all the time).</li>
 * </ul>
 *
 * <p><b>What it counts.</b> The whole fork's CPU time, not only the code measured: JMH's benchmark
 * thread and the benchmark's own threads (echo threads, ring members, partners, hogs), the
 * carriers and the schedulers' own threads, JMH's threads (its iteration timer and the link to
 * the host JVM, which mostly sleep), the JIT compilers and the garbage collector. The window is
 * the profiler's: from just before the iteration's {@code @Setup(Level.Iteration)} to just after
 * its {@code @TearDown}, which is slightly longer than the time JMH measures, and which in a
 * fork's first and last iteration also holds the trial's set-up and tear-down (JMH runs them
 * inside those iterations: in the quick and full runs the first is a warm-up iteration, whose
 * results are dropped, and the last is measured); the operations are
 * all those the iteration ran ({@code getAllOps()}: JMH's measured ones and those of its
 * synchronisation phases, which run in the window too), times {@code @OperationsPerInvocation}.
 * Enable with {@code -prof io.loomgmp.benchmarks.ProcessCpuProfiler} (the runner always does).
 */
public final class ProcessCpuProfiler implements InternalProfiler {
    /** The secondary results' names, without JMH's "·" prefix. */
    public static final String CPU_PER_OP = "cpu/op";
    public static final String CORES = "cores";

    /** Made in the fork, at its first iteration: JMH also instantiates profilers in the host JVM. */
    private ProcessCpuClock clock;
    private long cpuBefore;
    private long wallBefore;

    @Override
    public String getDescription() {
        return "the fork's CPU time per operation and the cores it used, per iteration";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        if (clock == null) {
            clock = ProcessCpuClock.create();
        }
        wallBefore = System.nanoTime();
        cpuBefore = clock.nanos();
    }

    @Override
    @SuppressWarnings("rawtypes") // InternalProfiler's own signature
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams,
                                                       IterationResult result) {
        long cpu = clock.nanos() - cpuBefore;
        long wall = System.nanoTime() - wallBefore;
        return results(cpu, wall, result.getMetadata().getAllOps(), benchmarkParams.getMode(),
                benchmarkParams.getTimeUnit());
    }

    /**
     * The two results of one iteration.
     *
     * @param cpuNanos the process's CPU time over the window
     * @param wallNanos the window's wall time
     * @param ops the operations run in the window; with none, only {@code cores} is reported
     * @param mode the benchmark's mode: throughput reports CPU time in ns/op
     * @param unit the benchmark's output time unit: the time modes report CPU time in it per op
     */
    static List<ScalarResult> results(long cpuNanos, long wallNanos, long ops, Mode mode, TimeUnit unit) {
        if (cpuNanos < 0 || wallNanos <= 0) {
            throw new IllegalArgumentException("CPU " + cpuNanos + " ns over " + wallNanos + " ns of wall time");
        }
        List<ScalarResult> results = new ArrayList<>();
        if (ops > 0) {
            TimeUnit perOp = mode == Mode.Throughput ? TimeUnit.NANOSECONDS : unit;
            double cpuPerOp = (double) cpuNanos / ops / perOp.toNanos(1);
            results.add(new ScalarResult("·" + CPU_PER_OP, cpuPerOp, TimeValue.tuToString(perOp) + "/op",
                    AggregationPolicy.AVG));
        }
        results.add(new ScalarResult("·" + CORES, (double) cpuNanos / wallNanos, CORES, AggregationPolicy.AVG));
        return results;
    }
}
