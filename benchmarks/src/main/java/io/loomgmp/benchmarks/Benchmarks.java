package io.loomgmp.benchmarks;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Checks and waits shared by the benchmarks, each failing loudly rather than measuring something else. */
final class Benchmarks {
    /** Far longer than any invocation of the suite takes on a loaded 2-core machine. */
    static final long TIMEOUT_SECONDS = 60;

    private Benchmarks() {
    }

    /** For benchmarks whose JMH thread is itself one of the virtual threads measured. */
    static void requireVirtualBenchmarkThread() {
        if (!Thread.currentThread().isVirtual()) {
            throw new IllegalStateException("this benchmark runs on a virtual benchmark thread: run its forks with"
                    + " -Djmh.executor=VIRTUAL (its @Fork says so; -jvmArgsAppend on the command line replaces it)");
        }
    }

    /** Waits for {@code latch}, failing the benchmark rather than hanging it. */
    static void await(CountDownLatch latch, String what) throws InterruptedException {
        if (!latch.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException(what + ": " + latch.getCount() + " not done after " + TIMEOUT_SECONDS + " s");
        }
    }

    /** Joins {@code threads}, failing the benchmark rather than hanging it. */
    static void join(Thread[] threads, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        for (Thread thread : threads) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !thread.join(java.time.Duration.ofNanos(left))) {
                throw new IllegalStateException(what + ": " + thread + " still running after " + TIMEOUT_SECONDS + " s");
            }
        }
    }
}
