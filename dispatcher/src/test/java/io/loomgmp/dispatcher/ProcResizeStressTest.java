package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Resizes under load: one thread sets a random number of Ps (1 to 4) every millisecond or so
 * while two platform threads submit tasks, the tasks submit children from their carriers (every
 * placement), and timers fire (scheduled from carriers, so onto Ps that are being retired, and
 * from platform threads). Every task and every timer has an id and must run exactly once; the
 * whole run is bounded and fails with the snapshot rather than hang. Snapshots taken meanwhile
 * must stay consistent with the P count they report. Run with sysmon (the agent's set-up) and
 * without it (so that sysmon's thief wake-ups cannot hide a lost wake-up).
 */
class ProcResizeStressTest {
    private static final Duration RUN = Duration.ofSeconds(3);
    private static final Duration DRAIN_BOUND = Duration.ofSeconds(60);
    private static final int MAX_IDS = 2_000_000;

    @Test
    void resizingWhileTasksAndTimersRunLosesNothing() throws InterruptedException {
        soak(true);
    }

    @Test
    void resizingWithoutSysmonLosesNoWakeUp() throws InterruptedException {
        soak(false);
    }

    private static void soak(boolean sysmon) throws InterruptedException {
        AtomicIntegerArray runs = new AtomicIntegerArray(MAX_IDS);
        AtomicInteger nextId = new AtomicInteger();
        AtomicInteger completed = new AtomicInteger();
        AtomicReference<String> inconsistent = new AtomicReference<>();
        GmpScheduler.Builder builder = GmpScheduler.builder().procs(2).maxCarriers(16).name("resize")
                .keepAlive(Duration.ofMillis(50));
        if (!sysmon) {
            builder.withoutSysmon();
        }
        GmpScheduler s = builder.build();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        threads.add(Thread.ofPlatform().name("resizer").start(() -> {
            SplittableRandom random = new SplittableRandom(7);
            int resizes = 0;
            while (!stop.get()) {
                int procs = random.nextInt(1, 5);
                s.setProcs(procs);
                resizes++;
                SchedulerSnapshot now = s.snapshot();
                if (now.processors().size() != now.procs() || now.idleProcs() > now.procs()
                        || now.procs() < 1 || now.procs() > 4) {
                    inconsistent.compareAndSet(null, "after setProcs(" + procs + "): " + now);
                }
                LockSupport.parkNanos(random.nextLong(200_000, 2_000_000));
            }
            System.out.println("[resize sysmon=" + sysmon + "] " + resizes + " resizes");
        }));
        for (int t = 0; t < 2; t++) {
            long seed = 100 + t;
            threads.add(Thread.ofPlatform().name("submitter-" + t).start(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (!stop.get()) {
                    int id = nextId.getAndIncrement();
                    if (id >= MAX_IDS) {
                        return;
                    }
                    Task task = new Task(s, id, random.split(), 2, runs, nextId, completed);
                    if (random.nextInt(8) == 0) {
                        s.schedule(task, random.nextLong(2_000_000)); // a timer on a random P
                    } else {
                        s.execute(task);
                    }
                    if (random.nextInt(16) == 0) {
                        LockSupport.parkNanos(50_000);
                    }
                }
            }));
        }
        Thread.sleep(RUN.toMillis());
        stop.set(true);
        for (Thread thread : threads) {
            thread.join(DRAIN_BOUND.toMillis());
            if (thread.isAlive()) {
                fail(thread.getName() + " did not stop\n" + s.snapshot());
            }
        }
        // A task takes its children's ids before it counts itself completed: once every id taken
        // is completed, nothing is left to run or to spawn.
        long deadline = System.nanoTime() + DRAIN_BOUND.toNanos();
        while (completed.get() < Math.min(nextId.get(), MAX_IDS)) {
            if (System.nanoTime() - deadline > 0) {
                fail((Math.min(nextId.get(), MAX_IDS) - completed.get()) + " tasks never ran (sysmon=" + sysmon
                        + ")\n" + s.snapshot());
            }
            LockSupport.parkNanos(1_000_000);
        }
        int submitted = Math.min(nextId.get(), MAX_IDS);
        Probe.closeWithin(s, DRAIN_BOUND);
        assertEquals(null, inconsistent.get());
        for (int i = 0; i < submitted; i++) {
            if (runs.get(i) != 1) {
                fail("task " + i + " ran " + runs.get(i) + " times\n" + s.snapshot());
            }
        }
        assertEquals(submitted, completed.get());
        assertEquals(0, ProcResizeTest.retiring(s));
        FailureModelTest.assertQuiet(s.snapshot());
        assertTrue(submitted > 1_000, "only " + submitted + " tasks ran");
        System.out.println("[resize sysmon=" + sysmon + "] " + submitted + " tasks; " + s.snapshot());
    }

    /** Runs once (counted by id), computes briefly, and spawns children from its carrier: queued, run next, or timers. */
    private record Task(GmpScheduler s, int id, SplittableRandom random, int depth, AtomicIntegerArray runs,
                        AtomicInteger nextId, AtomicInteger completed) implements Runnable {
        @Override
        public void run() {
            runs.incrementAndGet(id);
            Probe.spin(Duration.ofNanos(random.nextInt(1_000, 20_000)));
            if (depth > 0) {
                for (int i = random.nextInt(3); i > 0; i--) {
                    int child = nextId.getAndIncrement();
                    if (child >= MAX_IDS) {
                        break;
                    }
                    Task task = new Task(s, child, random.split(), depth - 1, runs, nextId, completed);
                    switch (random.nextInt(4)) {
                        case 0 -> s.submit(task, Placement.RUNNEXT);
                        case 1 -> s.submit(task, Placement.LOCAL);
                        case 2 -> s.submit(task, Placement.GLOBAL);
                        default -> s.schedule(task, random.nextLong(1_000_000)); // on this carrier's P
                    }
                }
            }
            completed.incrementAndGet();
        }
    }
}
