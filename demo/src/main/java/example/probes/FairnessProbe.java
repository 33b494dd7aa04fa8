package example.probes;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code hogsPerProc × procs} virtual threads spin in CPU-bound loops for {@link #HOG_BOUND} while
 * a probe virtual thread sleeps 1 ms twenty times; then, still beside the hogs, a platform thread
 * starts fresh virtual threads one after another and times how long each takes to run. On a
 * scheduler that preempts (GMP with the agent's polls) both finish while the hogs spin; on one
 * that does not (ForkJoinPool) neither can run until the hogs stop.
 *
 * <p>Usage: {@code FairnessProbe [hogsPerProc]} (default 1). Prints
 * {@code sleepsFinishedWhileHogsRan}, {@code freshThreadsRanWhileHogsRan} (they start after the
 * sleeps, so this one means the whole probe did; {@code probeFinishedWhileHogsRan} says the same),
 * {@code worstLatenessMicros} and {@code meanLatenessMicros}
 * (of the 20 sleeps), {@code freshThreadMicros} (the worst of {@link #FRESH_THREADS} fresh threads
 * started from a platform thread), {@code probeMillis} and {@code hogs}. Each latency means
 * something only when its part finished while the hogs ran.
 */
public final class FairnessProbe {
    /** How long the hogs spin unless the probe finishes first. */
    public static final Duration HOG_BOUND = Duration.ofSeconds(3);
    public static final int SLEEPS = 20;
    public static final int FRESH_THREADS = 5;

    private static volatile boolean stop;
    private static volatile long sink;

    private FairnessProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int hogsPerProc = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        if (hogsPerProc < 1) {
            throw new IllegalArgumentException("hogsPerProc must be at least 1, was " + hogsPerProc);
        }
        int procs = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        int hogCount = hogsPerProc * procs;
        CountDownLatch spinning = new CountDownLatch(hogCount);
        Thread[] hogs = new Thread[hogCount];
        long hogStart = System.nanoTime();
        for (int i = 0; i < hogCount; i++) {
            hogs[i] = Thread.ofVirtual().name("hog-" + i).start(() -> {
                spinning.countDown();
                spin(hogStart);
            });
        }
        spinning.await();

        long[] lateness = new long[SLEEPS];
        long probeStart = System.nanoTime();
        Thread probe = Thread.ofVirtual().name("probe").start(() -> {
            for (int i = 0; i < SLEEPS; i++) {
                long before = System.nanoTime();
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                lateness[i] = System.nanoTime() - before - 1_000_000;
            }
        });
        boolean probeFinished = probe.join(HOG_BOUND.minusNanos(System.nanoTime() - hogStart));
        long probeMillis = (System.nanoTime() - probeStart) / 1_000_000;

        // This (platform) thread starts each fresh virtual thread: it enters the scheduler from outside.
        long freshWorst = 0;
        boolean freshRan = true;
        for (int i = 0; i < FRESH_THREADS && freshRan && !stop; i++) {
            CountDownLatch ran = new CountDownLatch(1);
            long started = System.nanoTime();
            long[] runAt = new long[1];
            Thread.ofVirtual().name("fresh-" + i).start(() -> {
                runAt[0] = System.nanoTime();
                ran.countDown();
            });
            long left = HOG_BOUND.toNanos() - (System.nanoTime() - hogStart);
            freshRan = ran.await(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (freshRan) {
                freshWorst = Math.max(freshWorst, runAt[0] - started);
                Thread.sleep(5); // the next one lands at another moment of the hogs' time slices
            }
        }
        boolean stopped = stop;
        boolean finishedWhileHogsRan = probeFinished && freshRan && !stopped;
        stop = true;
        for (Thread hog : hogs) {
            hog.join();
        }
        probe.join();
        long worst = 0;
        long sum = 0;
        for (long late : lateness) {
            worst = Math.max(worst, late);
            sum += late;
        }
        System.out.println("probeFinishedWhileHogsRan=" + finishedWhileHogsRan);
        System.out.println("sleepsFinishedWhileHogsRan=" + probeFinished);
        System.out.println("freshThreadsRanWhileHogsRan=" + (probeFinished && freshRan && !stopped));
        System.out.println("worstLatenessMicros=" + worst / 1_000);
        System.out.println("meanLatenessMicros=" + sum / SLEEPS / 1_000);
        System.out.println("freshThreadMicros=" + freshWorst / 1_000);
        System.out.println("probeMillis=" + probeMillis);
        System.out.println("hogs=" + hogCount);
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
