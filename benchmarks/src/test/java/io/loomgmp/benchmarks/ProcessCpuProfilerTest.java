package io.loomgmp.benchmarks;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.results.ScalarResult;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessCpuProfilerTest {
    private static ScalarResult result(List<ScalarResult> results, String name) {
        return results.stream().filter(r -> r.getLabel().equals("·" + name)).findFirst().orElseThrow(
                () -> new AssertionError("no " + name + " in " + results));
    }

    @Test
    void cpuPerOpIsInTheBenchmarksUnitAndCoresAreCpuOverWallTime() {
        // 3 ms of CPU over 2 ms of wall time, 1,000 operations: 3 µs of CPU each, 1.5 cores.
        List<ScalarResult> results = ProcessCpuProfiler.results(3_000_000, 2_000_000, 1_000, Mode.AverageTime,
                TimeUnit.MICROSECONDS);
        assertEquals(2, results.size());
        assertEquals(3.0, result(results, ProcessCpuProfiler.CPU_PER_OP).getScore(), 1e-12);
        assertEquals("us/op", result(results, ProcessCpuProfiler.CPU_PER_OP).getScoreUnit());
        assertEquals(1.5, result(results, ProcessCpuProfiler.CORES).getScore(), 1e-12);
        assertEquals("cores", result(results, ProcessCpuProfiler.CORES).getScoreUnit());

        ScalarResult millis = result(ProcessCpuProfiler.results(3_000_000, 2_000_000, 1_000, Mode.AverageTime,
                TimeUnit.MILLISECONDS), ProcessCpuProfiler.CPU_PER_OP);
        assertEquals(0.003, millis.getScore(), 1e-15);
        assertEquals("ms/op", millis.getScoreUnit());
    }

    @Test
    void throughputGetsItsCpuTimeInNanosecondsPerOp() {
        // An ops/s benchmark: per op in seconds would read 0.000003.
        ScalarResult cpu = result(ProcessCpuProfiler.results(3_000_000, 2_000_000, 1_000, Mode.Throughput,
                TimeUnit.SECONDS), ProcessCpuProfiler.CPU_PER_OP);
        assertEquals(3_000, cpu.getScore(), 1e-9);
        assertEquals("ns/op", cpu.getScoreUnit());
    }

    @Test
    void withoutOperationsOnlyTheCoresAreReportedAndNonsenseIsRefused() {
        List<ScalarResult> results = ProcessCpuProfiler.results(1_000, 1_000, 0, Mode.AverageTime, TimeUnit.NANOSECONDS);
        assertEquals(List.of("·" + ProcessCpuProfiler.CORES), results.stream().map(ScalarResult::getLabel).toList());
        assertThrows(IllegalArgumentException.class,
                () -> ProcessCpuProfiler.results(-1, 1_000, 1, Mode.AverageTime, TimeUnit.NANOSECONDS));
        assertThrows(IllegalArgumentException.class,
                () -> ProcessCpuProfiler.results(1_000, 0, 1, Mode.AverageTime, TimeUnit.NANOSECONDS));
    }

    /**
     * The clock counts this process's CPU time in nanoseconds: at least what this thread burns
     * (its own CPU clock, from the JVM), and no more than all cores could over the wall time.
     */
    @Test
    void theProcessClockCountsAtLeastThisThreadsCpuTimeInNanoseconds() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ProcessCpuClock clock = ProcessCpuClock.create();
        long wallStart = System.nanoTime();
        long processStart = clock.nanos();
        long threadStart = threads.getCurrentThreadCpuTime();
        long sink = 0;
        // 50 ms of this thread's CPU, however long a loaded machine takes to give it
        while (threads.getCurrentThreadCpuTime() - threadStart < 50_000_000L) {
            for (int i = 0; i < 10_000; i++) {
                sink += i ^ sink;
            }
        }
        long thread = threads.getCurrentThreadCpuTime() - threadStart;
        long process = clock.nanos() - processStart;
        long wall = System.nanoTime() - wallStart;
        // 10 ms of slack for a clock that counts in scheduler ticks (the MXBean off Linux)
        assertTrue(process >= thread - 10_000_000L, "process " + process + " ns, this thread " + thread + " ns"
                + " (loop " + sink + ")");
        // A clock in microseconds or milliseconds fails above; one in coarser units than
        // nanoseconds, below. The bound is loose: a CPU quota may let a burst use more cores.
        assertTrue(process <= 4L * Runtime.getRuntime().availableProcessors() * wall + 10_000_000L,
                "process " + process + " ns over " + wall + " ns of wall time");
    }
}
