package example.probes;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * {@code procs} virtual threads spin in CPU-bound loops for {@link #HOG_BOUND} while a probe
 * virtual thread sleeps 1 ms twenty times; prints how late each wake-up came. On a scheduler that
 * preempts (GMP with the agent's polls) the probe finishes while the hogs spin; on one that does
 * not (ForkJoinPool) it cannot run until they stop.
 *
 * <p>Prints {@code probeFinishedWhileHogsRan}, {@code worstLatenessMicros} (of the 20 sleeps;
 * meaningful only when the probe finished while the hogs ran) and {@code probeMillis}.
 */
public final class FairnessProbe {
    /** How long the hogs spin unless the probe finishes first. */
    public static final Duration HOG_BOUND = Duration.ofSeconds(3);
    static final int SLEEPS = 20;

    private static volatile boolean stop;
    private static volatile long sink;

    private FairnessProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int procs = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        CountDownLatch spinning = new CountDownLatch(procs);
        Thread[] hogs = new Thread[procs];
        long hogStart = System.nanoTime();
        for (int i = 0; i < procs; i++) {
            hogs[i] = Thread.ofVirtual().name("hog-" + i).start(() -> {
                spinning.countDown();
                spin(hogStart);
            });
        }
        spinning.await();

        long[] worstLateness = {0};
        long probeStart = System.nanoTime();
        Thread probe = Thread.ofVirtual().name("probe").start(() -> {
            for (int i = 0; i < SLEEPS; i++) {
                long before = System.nanoTime();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                long late = System.nanoTime() - before - 1_000_000;
                worstLateness[0] = Math.max(worstLateness[0], late);
            }
        });
        boolean finishedWhileHogsRan = probe.join(HOG_BOUND.minusNanos(System.nanoTime() - hogStart))
                && !stop;
        long probeMillis = (System.nanoTime() - probeStart) / 1_000_000;
        stop = true;
        for (Thread hog : hogs) {
            hog.join();
        }
        probe.join();
        System.out.println("probeFinishedWhileHogsRan=" + finishedWhileHogsRan);
        System.out.println("worstLatenessMicros=" + worstLateness[0] / 1_000);
        System.out.println("probeMillis=" + probeMillis);
        System.out.println("hogBoundMillis=" + HOG_BOUND.toMillis());
    }

    /** CPU-bound: nothing here parks or yields, except the poll the agent puts at the back-edge. */
    private static void spin(long start) {
        long x = 1;
        long bound = HOG_BOUND.toNanos();
        while (!stop && System.nanoTime() - start < bound) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }
}
