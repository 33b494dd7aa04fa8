package benchapp;

import java.time.Duration;

/**
 * CPU-bound virtual threads that never block: the hogs of the fairness benchmark.
 *
 * <p>This class is deliberately outside {@code io.loomgmp.}: the loom-gmp agent inserts
 * preemption polls into every application class except loom-gmp's own, so here, as in a user's
 * code, the hog's loops get polls and GMP's sysmon can take the carrier back from a hog. Without
 * the agent (the ForkJoinPool forks) nothing preempts a hog.
 *
 * <p>A hog stops when asked, or at a deadline at the latest: on a scheduler that cannot preempt,
 * the thread that would ask may itself never get a carrier back until the hogs end.
 */
public final class CpuHogs {
    private final Thread[] hogs;
    private volatile boolean stopped;
    private volatile long sink;

    private CpuHogs(int count, long deadlineNanos) {
        hogs = new Thread[count];
        for (int i = 0; i < count; i++) {
            long seed = 0x9E3779B97F4A7C15L * (i + 1);
            hogs[i] = Thread.ofVirtual().name("cpu-hog-" + i).start(() -> spin(seed, deadlineNanos));
        }
    }

    /** Starts {@code count} hogs that spin until {@link #stop(Duration)} or {@code System.nanoTime() >= deadlineNanos}. */
    public static CpuHogs start(int count, long deadlineNanos) {
        return new CpuHogs(count, deadlineNanos);
    }

    private void spin(long seed, long deadlineNanos) {
        long x = seed;
        while (!stopped && System.nanoTime() - deadlineNanos < 0) {
            for (int i = 0; i < 1_000; i++) { // xorshift64: a dependent chain the JIT cannot fold
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        sink = x;
    }

    /** Asks the hogs to stop and waits for them, at most {@code timeout}. */
    public void stop(Duration timeout) throws InterruptedException {
        stopped = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread hog : hogs) {
            if (!hog.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                throw new IllegalStateException(hog + " did not stop within " + timeout);
            }
        }
    }
}
