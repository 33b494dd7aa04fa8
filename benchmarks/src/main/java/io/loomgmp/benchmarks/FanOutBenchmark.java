package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Fan-out/fan-in: a parent virtual thread starts {@code children} short virtual threads and waits
 * for all of them (a latch); the score is the time from the parent's start to its end. One
 * producer of work, every carrier a consumer: it measures start, stealing and wake-ups of idle
 * carriers.
 *
 * <p>{@code procs}: the number of Ps, more than the cores if asked ({@link OnSchedulerAtProcs}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class FanOutBenchmark extends OnSchedulerAtProcs {
    @Param("100000")
    public int children;

    @Benchmark
    public long fanOutFanIn() throws InterruptedException {
        int n = children;
        LongAdder work = new LongAdder();
        CountDownLatch done = new CountDownLatch(n);
        Thread parent = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < n; i++) {
                int value = i;
                Thread.ofVirtual().start(() -> {
                    work.add(value);
                    done.countDown();
                });
            }
            try {
                Benchmarks.await(done, "fan-out");
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Benchmarks.join(new Thread[] {parent}, "fan-out parent");
        if (work.sum() != (long) n * (n - 1) / 2) {
            throw new IllegalStateException("fan-out lost work: " + done.getCount() + " children not done");
        }
        return work.sum();
    }
}
