package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Pinned carriers: procs virtual threads ("pinners") each call a native {@code usleep} of
 * {@value #PIN_MILLIS} ms in a loop ({@link NativeSleep}: pinned, their carriers blocked), with a
 * 1 ms {@link Thread#sleep} between calls (unpinned: the carrier is free meanwhile; a
 * {@code Thread.yield()} instead would starve ForkJoinPool's external submissions for good, the
 * yielding pinner being taken again before them); meanwhile JMH's (platform) thread starts batches of
 * {@value #TASKS} short virtual threads and waits for them. The score is short tasks completed per
 * second, and {@code ·completion.p50/p99} the time from a short task's start to its end.
 *
 * <p>With every carrier pinned, a short task runs only when some carrier comes free: between two
 * native calls of a pinner, or on a carrier that the scheduler adds. ForkJoinPool does not
 * compensate native calls; GMP's sysmon hands the P of a blocked carrier to another carrier
 * (carrier compensation), where implemented.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class PinnedBenchmark extends OnScheduler {
    static final int TASKS = 100;
    private static final int PIN_MILLIS = 20;
    private static final Duration GAP = Duration.ofMillis(1);
    private static final Latencies.Stripes COMPLETION = Latencies.recorder("completion");

    private Thread[] pinners;
    private volatile boolean stopped;

    @Setup(Level.Iteration)
    public void pinEveryCarrier() {
        stopped = false;
        pinners = new Thread[PROCS];
        for (int i = 0; i < pinners.length; i++) {
            pinners[i] = Thread.ofVirtual().name("pinner-" + i).start(() -> {
                try {
                    while (!stopped) {
                        NativeSleep.sleepPinned(PIN_MILLIS * 1_000);
                        Thread.sleep(GAP);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    @Benchmark
    @OperationsPerInvocation(TASKS)
    public void shortTasks() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(TASKS);
        for (int i = 0; i < TASKS; i++) {
            long started = System.nanoTime();
            Thread.ofVirtual().start(() -> {
                Latencies.record(COMPLETION, System.nanoTime() - started);
                done.countDown();
            });
        }
        Benchmarks.await(done, "short tasks");
    }

    @TearDown(Level.Iteration)
    public void unpin() throws InterruptedException {
        stopped = true;
        Benchmarks.join(pinners, "pinners");
    }
}
