package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Soak for lost wake-ups: bursts of work submitted from outside and from carriers (every
 * placement), separated by idle gaps long enough for every carrier to give up its P and park.
 * Each round must drain within its bound; a lost wake-up leaves work queued with every carrier
 * parked, and the test then fails with the scheduler's snapshot instead of hanging.
 */
class SchedulingStressTest {
    private static final Duration SOAK = Duration.ofSeconds(8);
    private static final Duration ROUND_BOUND = Duration.ofSeconds(10);

    @Test
    void randomSubmissionsWithIdleGapsNeverStrandWork() {
        for (int procs : new int[] {1, 2, 3}) {
            soak(procs, SOAK.dividedBy(3));
        }
    }

    private static void soak(int procs, Duration duration) {
        AtomicLong submitted = new AtomicLong();
        AtomicLong completed = new AtomicLong();
        SplittableRandom random = new SplittableRandom(42 + procs);
        try (GmpScheduler s = GmpScheduler.builder().procs(procs).name("soak" + procs).withoutSysmon()
                .keepAlive(Duration.ofMillis(100)).build()) {
            long end = System.nanoTime() + duration.toNanos();
            int rounds = 0;
            while (System.nanoTime() - end < 0) {
                rounds++;
                int burst = random.nextInt(1, 64);
                for (int i = 0; i < burst; i++) {
                    submitted.incrementAndGet();
                    s.execute(new Spawner(s, random.split(), random.nextInt(4), submitted, completed));
                }
                long deadline = System.nanoTime() + ROUND_BOUND.toNanos();
                while (completed.get() != submitted.get()) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("round " + rounds + " with procs=" + procs + ": " + (submitted.get() - completed.get())
                                + " tasks never ran (lost wake-up?)\n" + s.snapshot());
                    }
                    Thread.onSpinWait();
                }
                // Idle gap: 0 (submit while carriers are still spinning) up to 2 ms (all parked).
                int gap = random.nextInt(3);
                if (gap > 0) {
                    LockSupport.parkNanos(random.nextLong(gap * 1_000_000L));
                }
            }
            assertEquals(submitted.get(), completed.get());
            // Wake-ups that found no parked carrier started extra ones; idle past the keep-alive, they end.
            Probe.awaitTrue(() -> s.snapshot().carriers() <= procs, Duration.ofSeconds(10), s,
                    "spare carriers retiring after the keep-alive");
            System.out.println("[soak procs=" + procs + ", " + rounds + " rounds] " + s.snapshot());
        }
    }

    /** Runs briefly and spawns up to {@code depth} levels of children with random placements. */
    private record Spawner(GmpScheduler s, SplittableRandom random, int depth, AtomicLong submitted,
                           AtomicLong completed) implements Runnable {
        @Override
        public void run() {
            if (depth > 0) {
                int children = random.nextInt(4);
                for (int i = 0; i < children; i++) {
                    Placement placement = Placement.values()[random.nextInt(Placement.values().length)];
                    submitted.incrementAndGet();
                    s.submit(new Spawner(s, random.split(), depth - 1, submitted, completed), placement);
                }
            }
            if (random.nextInt(8) == 0) {
                Probe.spin(Duration.ofNanos(1_000L * (random.nextInt(200))));
            }
            completed.incrementAndGet();
        }
    }
}
