package io.loomgmp.benchmarks;

import benchapp.CpuHogs;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.IterationParams;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Fairness: {@code hogsPerProc} × procs CPU hogs ({@link CpuHogs}, which never block) and a
 * probe, a virtual thread that sleeps 1 ms in a loop; the score is the probe's time per sleep,
 * and {@code ·lateness.p50/p99} how much later than 1 ms it got its carrier back. The probe is
 * JMH's own benchmark thread, a virtual thread of the scheduler under test
 * ({@code -Djmh.executor=VIRTUAL}). With 1 hog per P the hogs just fill the carriers; with 2
 * and 8 they oversubscribe them, so that when a hog is preempted, other hogs wait for its
 * carrier as well as the probe.
 *
 * <p>On GMP, sysmon asks a hog's P to give it up after a time slice (10 ms) and the hog yields at
 * its next preemption poll; the probe, woken by the JDK's timer onto the global queue, runs
 * then. The goal, oversubscribed too: the probe's lateness p99 within two time slices (20 ms).
 * ForkJoinPool cannot preempt: once the hogs hold every carrier, the probe waits until they
 * end. So that an iteration ends at all there, the hogs start at the iteration's first probe and
 * stop by themselves after one iteration's time; FJP's figure is therefore about the iteration
 * time, i.e. "until the hogs stop" (hogs that got no carrier by then find their deadline passed
 * and end at once).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = "-Djmh.executor=VIRTUAL")
public class FairnessBenchmark extends OnScheduler {
    private static final Duration SLEEP = Duration.ofMillis(1);
    private static final Latencies.Stripes LATENESS = Latencies.recorder("lateness");

    /** Hogs per P (per carrier of ForkJoinPool): 1 fills the carriers, 2 and 8 oversubscribe them. */
    @Param({"1", "2", "8"})
    public int hogsPerProc;

    private long iterationNanos;
    private CpuHogs hogs;

    @Setup(Level.Iteration)
    public void arm(IterationParams iteration) {
        Benchmarks.requireVirtualBenchmarkThread();
        if (hogsPerProc < 1) {
            throw new IllegalArgumentException("hogsPerProc=" + hogsPerProc + ": at least 1");
        }
        iterationNanos = iteration.getTime().convertTo(TimeUnit.NANOSECONDS);
        hogs = null;
    }

    @Benchmark
    public void probe() throws InterruptedException {
        if (hogs == null) {
            // Here, not in set-up: started in set-up, the hogs could take every carrier before
            // JMH starts the clock, and a scheduler without preemption would look perfect.
            hogs = CpuHogs.start(hogsPerProc * PROCS, System.nanoTime() + iterationNanos);
        }
        long start = System.nanoTime();
        Thread.sleep(SLEEP);
        Latencies.record(LATENESS, System.nanoTime() - start - SLEEP.toNanos());
    }

    @TearDown(Level.Iteration)
    public void stopHogs() throws InterruptedException {
        if (hogs != null) {
            hogs.stop(Duration.ofSeconds(Benchmarks.TIMEOUT_SECONDS));
        }
    }
}
