package io.loomgmp.benchmarks;

import io.loomgmp.dispatcher.GmpScheduler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The dispatcher alone, with plain {@link Runnable}s and no virtual thread: {@code execute} from
 * JMH's platform thread, then the task runs on a carrier.
 * <ul>
 *   <li>{@code executeRoundTrip}: one task that wakes the submitter; idle carriers must be woken
 *       each time, so this is mostly the cost of a wake-up.</li>
 *   <li>{@code executeBurst}: {@value #BURST} tasks at once, the last to finish wakes the submitter;
 *       time per task: queueing, stealing and running in bulk.</li>
 * </ul>
 * {@code gmp}: a {@link GmpScheduler} of procs Ps. {@code fjp}: a {@link ForkJoinPool} configured
 * as the JDK 25 configures its virtual-thread scheduler (FIFO async mode, parallelism procs, up to
 * 256 threads, 30 s keep-alive).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class DispatcherBenchmark extends OnScheduler {
    static final int BURST = 1_000;

    private Executor executor;
    private AutoCloseable closer;

    @Setup(Level.Trial)
    public void createExecutor() {
        if (Schedulers.GMP.equals(scheduler)) {
            GmpScheduler gmp = configure(GmpScheduler.builder().procs(PROCS).name("bench")).build();
            executor = gmp;
            closer = gmp;
        } else {
            ForkJoinPool pool = new ForkJoinPool(PROCS, ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true,
                    0, Math.max(PROCS, 256), Math.max(PROCS / 2, 1), p -> true, 30, TimeUnit.SECONDS);
            executor = pool;
            closer = pool;
        }
    }

    /** The GMP scheduler's settings beyond procs and name: the defaults here; variants change them. */
    protected GmpScheduler.Builder configure(GmpScheduler.Builder builder) {
        return builder;
    }

    @Benchmark
    public void executeRoundTrip() {
        Thread submitter = Thread.currentThread();
        AtomicInteger left = new AtomicInteger(1);
        executor.execute(() -> {
            left.set(0);
            LockSupport.unpark(submitter);
        });
        awaitZero(left);
    }

    @Benchmark
    @OperationsPerInvocation(BURST)
    public void executeBurst() {
        Thread submitter = Thread.currentThread();
        AtomicInteger left = new AtomicInteger(BURST);
        Runnable task = () -> {
            if (left.decrementAndGet() == 0) {
                LockSupport.unpark(submitter);
            }
        };
        for (int i = 0; i < BURST; i++) {
            executor.execute(task);
        }
        awaitZero(left);
    }

    private static void awaitZero(AtomicInteger left) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Benchmarks.TIMEOUT_SECONDS);
        while (left.get() != 0) {
            LockSupport.parkNanos(left, TimeUnit.SECONDS.toNanos(1));
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(left.get() + " tasks not run after " + Benchmarks.TIMEOUT_SECONDS + " s");
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() throws Exception {
        closer.close();
    }
}
