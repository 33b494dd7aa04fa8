package io.loomgmp.demo;

import example.probes.TimersProbe;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's workloads: plain virtual-thread code that knows nothing of loom-gmp, so that the
 * same code runs on whichever scheduler the JVM gives its virtual threads. Run in a JVM of its
 * own; prints one {@code RESULT <key> <median> <unit>} line per workload on standard output and
 * progress on standard error. Each workload runs once to warm up, then {@code runs} times.
 */
public final class Workloads {
    private Workloads() {
    }

    /** Sizes of the workloads: full for the demo, small for the smoke test. */
    record Sizes(int pingPongRoundTrips, int skynetLeaves, int fanOutThreads, int sleepers, int sleeps, int runs) {
        static final Sizes FULL = new Sizes(100_000, 1_000_000, 100_000, 10_000, 10, 3);
        static final Sizes SMALL = new Sizes(2_000, 10_000, 1_000, 1_000, 5, 1);
    }

    public static void main(String[] args) throws Exception {
        Sizes sizes = Arrays.asList(args).contains("--small") ? Sizes.SMALL : Sizes.FULL;
        String carrier = carrierName();
        System.out.println("CARRIER " + carrier);
        measure("pingpong", "ns/round-trip", sizes.runs(), () -> pingPong(sizes.pingPongRoundTrips()));
        measure("skynet", "ms", sizes.runs(), () -> skynet(sizes.skynetLeaves()));
        measure("fanout", "ms", sizes.runs(), () -> fanOutFanIn(sizes.fanOutThreads()));
        measureSleepers(sizes);
    }

    interface Run {
        double once() throws Exception;
    }

    private static void measure(String key, String unit, int runs, Run run) throws Exception {
        run.once(); // warm-up
        double[] results = new double[runs];
        for (int i = 0; i < runs; i++) {
            results[i] = run.once();
            System.err.printf("  %-8s run %d/%d: %.1f %s%n", key, i + 1, runs, results[i], unit);
        }
        Arrays.sort(results);
        System.out.printf("RESULT %s %.1f %s%n", key, results[runs / 2], unit);
    }

    /**
     * {@link TimersProbe#sleepers}: {@code sleepers} virtual threads each sleep 1 ms {@code sleeps}
     * times. Prints two results, the medians of the runs' total time ({@code sleepers}) and of their
     * 99th percentile of lateness ({@code sleeperslateness}).
     */
    private static void measureSleepers(Sizes sizes) throws InterruptedException {
        sleepers(sizes); // warm-up
        double[] totals = new double[sizes.runs()];
        double[] p99s = new double[sizes.runs()];
        for (int i = 0; i < sizes.runs(); i++) {
            TimersProbe.Sleepers run = sleepers(sizes);
            totals[i] = run.totalNanos() / 1e6;
            p99s[i] = run.latenessMicros(0.99) / 1e3;
            System.err.printf("  %-8s run %d/%d: %.1f ms, lateness p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", "sleepers",
                    i + 1, sizes.runs(), totals[i], run.latenessMicros(0.5) / 1e3, p99s[i],
                    run.latenessMicros(1.0) / 1e3);
        }
        Arrays.sort(totals);
        Arrays.sort(p99s);
        System.out.printf("RESULT sleepers %.1f ms%n", totals[sizes.runs() / 2]);
        System.out.printf("RESULT sleeperslateness %.1f ms%n", p99s[sizes.runs() / 2]);
    }

    private static TimersProbe.Sleepers sleepers(Sizes sizes) throws InterruptedException {
        TimersProbe.Sleepers run = TimersProbe.sleepers(sizes.sleepers(), sizes.sleeps());
        if (!run.finishedWithinBound() || run.completed() != sizes.sleepers()) {
            throw new IllegalStateException("sleepers: " + run.completed() + " of " + sizes.sleepers()
                    + " threads completed their sleeps in time");
        }
        return run;
    }

    /** Where a virtual thread runs: e.g. "gmp-M0" or "ForkJoinPool-1-worker-1". */
    static String carrierName() throws InterruptedException {
        String[] text = new String[1];
        Thread.ofVirtual().start(() -> text[0] = Thread.currentThread().toString()).join();
        return text[0].substring(text[0].lastIndexOf('@') + 1);
    }

    /** Two virtual threads hand a token back and forth through SynchronousQueues: ns per round trip. */
    static double pingPong(int roundTrips) throws InterruptedException {
        SynchronousQueue<Integer> ping = new SynchronousQueue<>();
        SynchronousQueue<Integer> pong = new SynchronousQueue<>();
        Thread echo = Thread.ofVirtual().start(() -> {
            try {
                for (int i = 0; i < roundTrips; i++) {
                    pong.put(ping.take());
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        long[] elapsed = new long[1];
        Thread driver = Thread.ofVirtual().start(() -> {
            try {
                long start = System.nanoTime();
                for (int i = 0; i < roundTrips; i++) {
                    ping.put(i);
                    if (pong.take() != i) {
                        throw new IllegalStateException("token " + i + " lost");
                    }
                }
                elapsed[0] = System.nanoTime() - start;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        driver.join();
        echo.join();
        return (double) elapsed[0] / roundTrips;
    }

    /** The skynet tree: every node starts 10 virtual threads and sums what they return: ms. */
    static double skynet(int leaves) throws InterruptedException {
        long start = System.nanoTime();
        long[] sum = new long[1];
        Thread root = Thread.ofVirtual().start(() -> sum[0] = skynetNode(0, leaves));
        root.join();
        long expected = (long) leaves * (leaves - 1) / 2;
        if (sum[0] != expected) {
            throw new IllegalStateException("skynet sum " + sum[0] + ", expected " + expected);
        }
        return (System.nanoTime() - start) / 1e6;
    }

    private static long skynetNode(long number, int size) {
        if (size == 1) {
            return number;
        }
        int childSize = size / 10;
        long[] results = new long[10];
        Thread[] children = new Thread[10];
        for (int i = 0; i < 10; i++) {
            int child = i;
            children[i] = Thread.ofVirtual().start(
                    () -> results[child] = skynetNode(number + (long) child * childSize, childSize));
        }
        long sum = 0;
        for (int i = 0; i < 10; i++) {
            try {
                children[i].join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            sum += results[i];
        }
        return sum;
    }

    /** A parent starts {@code threads} short virtual threads and waits for all of them: ms. */
    static double fanOutFanIn(int threads) throws InterruptedException {
        long start = System.nanoTime();
        LongAdder work = new LongAdder();
        CountDownLatch done = new CountDownLatch(threads);
        Thread parent = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < threads; i++) {
                int n = i;
                Thread.ofVirtual().start(() -> {
                    work.add(n);
                    done.countDown();
                });
            }
            try {
                done.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        parent.join();
        if (work.sum() != (long) threads * (threads - 1) / 2) {
            throw new IllegalStateException("fan-out lost work");
        }
        return (System.nanoTime() - start) / 1e6;
    }
}
