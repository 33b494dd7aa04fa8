package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Timers: {@code sleepers} virtual threads each sleep 1 ms, {@code sleeps} times; the score is the
 * time until the last one is done, and {@code ·lateness.p50/p99} (with {@link LatencyProfiler})
 * is how much later than 1 ms each sleep returned. Sleeps go through the JDK's timer threads,
 * which wake the sleeper from outside the scheduler (GMP's global queue).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class TimersBenchmark extends OnScheduler {
    private static final Duration SLEEP = Duration.ofMillis(1);
    private static final Latencies.Stripes LATENESS = Latencies.recorder("lateness");

    @Param("10000")
    public int sleepers;

    @Param("10")
    public int sleeps;

    @Benchmark
    public void sleepers() throws InterruptedException {
        int rounds = sleeps;
        CountDownLatch done = new CountDownLatch(sleepers);
        for (int t = 0; t < sleepers; t++) {
            Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < rounds; i++) {
                        long start = System.nanoTime();
                        Thread.sleep(SLEEP);
                        Latencies.record(LATENESS, System.nanoTime() - start - SLEEP.toNanos());
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                } finally {
                    done.countDown();
                }
            });
        }
        Benchmarks.await(done, "timers");
    }
}
