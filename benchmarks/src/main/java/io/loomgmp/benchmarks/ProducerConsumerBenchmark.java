package io.loomgmp.benchmarks;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Producer/consumer: {@code pairs} pairs of virtual threads, each pair passing items through its
 * own {@link ArrayBlockingQueue} of {@value #CAPACITY} slots; {@value #ITEMS} items per invocation
 * in all, split evenly between the pairs. The score is items handed over per second. A full or
 * empty queue parks one side and the other side's next operation wakes it: GMP's LIFO hand-off.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ProducerConsumerBenchmark extends HandOffBenchmark {
    static final int ITEMS = 100_000;
    private static final int CAPACITY = 16;

    /** Divides {@value #ITEMS}. */
    @Param("4")
    public int pairs;

    @Setup(Level.Trial)
    public void checkPairs() {
        if (pairs < 1 || ITEMS % pairs != 0) {
            throw new IllegalArgumentException("pairs=" + pairs + ": expected a divisor of " + ITEMS);
        }
    }

    @Benchmark
    @OperationsPerInvocation(ITEMS)
    public long transfer() throws InterruptedException {
        int perPair = ITEMS / pairs;
        AtomicLong received = new AtomicLong();
        Thread[] threads = new Thread[2 * pairs];
        for (int p = 0; p < pairs; p++) {
            ArrayBlockingQueue<Integer> queue = new ArrayBlockingQueue<>(CAPACITY);
            threads[2 * p] = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < perPair; i++) {
                        queue.put(i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            threads[2 * p + 1] = Thread.ofVirtual().start(() -> {
                long sum = 0;
                try {
                    for (int i = 0; i < perPair; i++) {
                        sum += queue.take();
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                received.addAndGet(sum);
            });
        }
        Benchmarks.join(threads, "producer/consumer");
        long expected = (long) pairs * perPair * (perPair - 1) / 2;
        if (received.get() != expected) {
            throw new IllegalStateException("consumers received " + received.get() + ", expected " + expected);
        }
        return received.get();
    }
}
