package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * No task is lost or run twice while memory runs out: the global queue's node allocations fail
 * now and then ({@code injectAllocationFault}), and so do carrier starts (an
 * {@code OutOfMemoryError} from the thread factory) and carriers' loops, while tasks overflow
 * their rings, move between Ps as {@code setProcs} retires them, and come from outside. A
 * submission from outside that fails with an {@code OutOfMemoryError} has queued nothing, and is
 * retried, as the JDK retries a virtual thread's submission; every other path must keep the task
 * (the global queue's reserve). Before the reserve, a failed allocation while a retired P's queue,
 * a failed carrier's task or a full ring's overflow moved to the global queue lost those tasks,
 * and a wake-up that failed after its task was queued threw, so that the retry queued it twice.
 */
class MemoryPressureTest {
    private static final Duration SOAK = Duration.ofSeconds(3);
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int MAX_TASKS = 600_000;
    /** Children a burst task queues locally at once: more than a ring holds, so it overflows. */
    private static final int BURST = RunQueue.CAPACITY + 40;

    private final AtomicIntegerArray runs = new AtomicIntegerArray(MAX_TASKS);
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicLong ran = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicBoolean generating = new AtomicBoolean(true);
    private final AtomicBoolean pressure = new AtomicBoolean(true);

    @Test
    void noTaskIsLostOrRunTwiceWhileAllocationsFail() throws InterruptedException {
        FailureModelTest.LimitedFactory factory = new FailureModelTest.LimitedFactory(Integer.MAX_VALUE, 4);
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        AtomicLong allocationFaults = new AtomicLong();
        GmpScheduler s = GmpScheduler.builder().procs(3).maxCarriers(12).keepAlive(Duration.ofMillis(20))
                .timeSlice(Duration.ofMillis(2)).threadFactory(factory).uncaughtExceptionHandler(reports)
                .injectAllocationFault(() -> {
                    if (pressure.get() && ThreadLocalRandom.current().nextInt(3) == 0) {
                        allocationFaults.incrementAndGet();
                        throw new OutOfMemoryError("Java heap space (injected: a global queue node)");
                    }
                })
                .injectLoopFault(() -> {
                    if (ThreadLocalRandom.current().nextInt(5_000) == 0) {
                        throw new OutOfMemoryError("Java heap space (injected in a carrier's loop)");
                    }
                }).build();
        long end = System.nanoTime() + SOAK.toNanos();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            long seed = 31 + t;
            threads.add(Thread.ofPlatform().name("pressure-outside-" + t).start(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (System.nanoTime() - end < 0) {
                    for (int i = 0; i < 16; i++) {
                        submit(s, random, Placement.GLOBAL);
                    }
                    LockSupport.parkNanos(random.nextLong(300_000));
                }
            }));
        }
        threads.add(Thread.ofPlatform().name("pressure-resizer").start(() -> {
            SplittableRandom random = new SplittableRandom(7);
            while (System.nanoTime() - end < 0) {
                s.setProcs(random.nextInt(1, 4)); // a retired P's queue moves to the global queue
                LockSupport.parkNanos(random.nextLong(200_000, 2_000_000));
            }
            s.setProcs(3);
        }));
        for (Thread thread : threads) {
            thread.join();
        }
        generating.set(false);
        pressure.set(false);
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (ran.get() != created.get()) {
            if (System.nanoTime() - deadline > 0) {
                fail((created.get() - ran.get()) + " of " + created.get() + " tasks never ran\n" + s.snapshot());
            }
            Thread.sleep(10);
        }
        Probe.closeWithin(s, BOUND);
        int n = created.get();
        assertTrue(n > 20_000, "only " + n + " tasks: the test tested little");
        for (int id = 0; id < n; id++) {
            if (runs.get(id) != 1) {
                fail("task " + id + " ran " + runs.get(id) + " times\n" + s.snapshot());
            }
        }
        SchedulerSnapshot after = s.snapshot();
        FailureModelTest.assertQuiet(after);
        assertTrue(allocationFaults.get() > 100, "few allocations failed: " + allocationFaults);
        assertTrue(factory.refused.get() > 0, "no carrier start was refused");
        long reserved = reports.all.stream().filter(f -> f instanceof SchedulerFailure sf
                && sf.site() == SchedulerFailure.Site.GLOBAL_QUEUE).count();
        assertTrue(reserved > 0, "the reserve was never used (reports are rate-limited, but not to none)");
        assertEquals(0, reports.all.stream().filter(f -> !(f instanceof SchedulerFailure)).count(),
                "only scheduler failures reach the handler: " + reports.all);
        System.out.println("memory pressure: " + n + " tasks, " + allocationFaults + " failed allocations, "
                + retried + " outside submissions retried, " + factory.refused.get() + " carrier starts refused, "
                + after.failures() + " failures, " + after.overflows() + " overflows");
    }

    /** Creates a task and queues it; from outside a carrier, retries a submission that ran out of memory. */
    private void submit(GmpScheduler s, SplittableRandom random, Placement placement) {
        int id = created.getAndIncrement();
        if (id >= MAX_TASKS) {
            created.decrementAndGet();
            return;
        }
        int action = random.nextInt(100);
        long seed = random.nextLong();
        Runnable task = () -> {
            runs.incrementAndGet(id);
            ran.incrementAndGet();
            act(s, action, new SplittableRandom(seed));
        };
        while (true) {
            try {
                s.submit(task, placement);
                return;
            } catch (OutOfMemoryError nothingQueued) {
                // As VirtualThread.submitRunContinuation does (it waits 100 ms): nothing was queued.
                retried.incrementAndGet();
                LockSupport.parkNanos(100_000);
            }
        }
    }

    private void act(GmpScheduler s, int action, SplittableRandom random) {
        if (!generating.get()) {
            return;
        }
        if (action < 3) { // a burst: the ring overflows to the global queue
            for (int i = 0; i < BURST; i++) {
                submit(s, random, Placement.LOCAL);
            }
        } else if (action < 35) { // children, with every placement
            Placement[] placements = Placement.values();
            for (int i = random.nextInt(1, 3); i > 0; i--) {
                submit(s, random, placements[random.nextInt(placements.length)]);
            }
        } else if (action < 37) {
            LockSupport.parkNanos(random.nextLong(200_000, 2_000_000)); // blocks the carrier: a hand-off
        }
    }
}
