package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.util.concurrent.TimeUnit;

/**
 * Skynet: every node of a tree starts 10 virtual threads and sums what they return, down to
 * {@code leaves} leaves that return their number (1,000,000 leaves: 1,111,111 virtual threads);
 * the score is the time of one whole tree. It measures thread start, hand-off of new threads to
 * other carriers (stealing) and join.
 *
 * <p>{@code procs}: the number of Ps, more than the cores if asked ({@link OnSchedulerAtProcs}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class SkynetBenchmark extends OnSchedulerAtProcs {
    private static final int FAN_OUT = 10;

    /** A power of 10. */
    @Param("1000000")
    public int leaves;

    @Setup(Level.Trial)
    public void checkLeaves() {
        int n = leaves;
        while (n > 1 && n % FAN_OUT == 0) {
            n /= FAN_OUT;
        }
        if (n != 1) {
            throw new IllegalArgumentException("leaves=" + leaves + ": expected a power of 10");
        }
    }

    @Benchmark
    public long tree() throws InterruptedException {
        return tree(leaves);
    }

    /** One whole tree of {@code leaves} leaves (a power of 10); checks and returns its sum. */
    static long tree(int leaves) throws InterruptedException {
        long[] sum = new long[1];
        Thread root = Thread.ofVirtual().start(() -> sum[0] = node(0, leaves));
        Benchmarks.join(new Thread[] {root}, "skynet");
        long expected = (long) leaves * (leaves - 1) / 2;
        if (sum[0] != expected) {
            throw new IllegalStateException("skynet sum " + sum[0] + ", expected " + expected);
        }
        return sum[0];
    }

    private static long node(long number, int size) {
        if (size == 1) {
            return number;
        }
        int childSize = size / FAN_OUT;
        long[] results = new long[FAN_OUT];
        Thread[] children = new Thread[FAN_OUT];
        for (int i = 0; i < FAN_OUT; i++) {
            int child = i;
            children[i] = Thread.ofVirtual().start(() -> results[child] = node(number + (long) child * childSize, childSize));
        }
        long sum = 0;
        for (int i = 0; i < FAN_OUT; i++) {
            try {
                children[i].join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            sum += results[i];
        }
        return sum;
    }
}
