package io.loomgmp.demo;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.atomic.LongAdder;

/**
 * The demo's hand-off workloads: what a scheduler costs when virtual threads do little but wake
 * each other. Plain virtual-thread code that knows nothing of loom-gmp, run in a JVM of its own on
 * whichever scheduler that JVM gives its virtual threads. Each workload runs once to warm up, then
 * {@code runs} times; prints the median as {@code key=value} lines on standard output
 * ({@code pingpongNanos}, {@code fanoutMillis}, {@code fanoutThreads}, {@code carriers}) and each
 * run on standard error.
 *
 * <p>Usage: {@code Workloads [--small]}.
 */
public final class Workloads {
    private Workloads() {
    }

    /** Sizes of the workloads: full for the demo, small for its smoke test. */
    record Sizes(int pingPongRoundTrips, int fanOutThreads, int runs) {
        static final Sizes FULL = new Sizes(100_000, 100_000, 5);
        static final Sizes SMALL = new Sizes(20_000, 10_000, 3);
    }

    interface Run {
        double once() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        if (!List.of("--small").containsAll(Arrays.asList(args))) {
            System.err.println("usage: Workloads [--small]");
            System.exit(2);
        }
        Sizes sizes = args.length == 1 ? Sizes.SMALL : Sizes.FULL;
        System.out.println("carriers=" + carrierName());
        System.out.printf("pingpongNanos=%.1f%n", median("ping-pong", "ns per round trip", sizes.runs(),
                () -> pingPong(sizes.pingPongRoundTrips())));
        System.out.printf("fanoutMillis=%.2f%n", median("fan-out", "ms", sizes.runs(),
                () -> fanOutFanIn(sizes.fanOutThreads())));
        System.out.println("fanoutThreads=" + sizes.fanOutThreads());
    }

    private static double median(String name, String unit, int runs, Run run) throws Exception {
        run.once(); // warm-up: the JIT, and the scheduler's and the JDK's lazy state
        double[] results = new double[runs];
        for (int i = 0; i < runs; i++) {
            results[i] = run.once();
        }
        System.err.printf("  %s, %s: %s%n", name, unit, Arrays.toString(results));
        Arrays.sort(results);
        return results[runs / 2];
    }

    /** Where a virtual thread runs, its number replaced by {@code *}: "gmp-M*" or "ForkJoinPool-1-worker-*". */
    static String carrierName() throws InterruptedException {
        String[] text = new String[1];
        Thread.ofVirtual().start(() -> text[0] = Thread.currentThread().toString()).join();
        return text[0].substring(text[0].lastIndexOf('@') + 1).replaceAll("\\d+$", "*");
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
