package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Yield storm: 2 × procs virtual threads, each calling {@link Thread#yield()} in a loop, share a
 * budget of {@value #YIELDS} yields per invocation; the score is the time per yield (wall clock
 * over all threads). Every yield unmounts, queues and remounts a continuation: on GMP in its P's
 * own ring (Go's {@code Gosched} would put it on the global queue).
 *
 * <p>The budget is taken in batches of {@value #BATCH} from one shared counter, so the total is
 * exact whatever procs is (the score needs a fixed count of operations) and the counter is
 * touched once per 100 yields.
 *
 * <p>{@code procs}: the number of Ps, more than the cores if asked ({@link OnSchedulerAtProcs}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class YieldStormBenchmark extends OnSchedulerAtProcs {
    static final int YIELDS = 100_000;
    private static final int BATCH = 100; // divides YIELDS

    @Benchmark
    @OperationsPerInvocation(YIELDS)
    public void yieldStorm() throws InterruptedException {
        AtomicInteger budget = new AtomicInteger(YIELDS);
        Thread[] threads = new Thread[2 * PROCS];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = Thread.ofVirtual().start(() -> {
                while (budget.getAndAdd(-BATCH) > 0) {
                    for (int i = 0; i < BATCH; i++) {
                        Thread.yield();
                    }
                }
            });
        }
        Benchmarks.join(threads, "yield storm");
    }
}
