package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Chaos soak, bounded in time: tasks that throw exceptions and errors, interrupt their carrier,
 * block it (sysmon hands their P off), spawn children with every placement, set timers and
 * cancel timeouts; a carrier factory that refuses one start in five; carriers that fail in their
 * loop now and then. Every task must run exactly once (a cancelled timer's task never), and after
 * {@code close()} nothing spins, nothing is blocked, no preemption request is open, and every
 * carrier thread has ended.
 */
class ChaosSoakTest {
    private static final Duration SOAK = Duration.ofSeconds(6);
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int MAX_TASKS = 400_000;

    private final AtomicIntegerArray runs = new AtomicIntegerArray(MAX_TASKS);
    private final AtomicIntegerArray cancelled = new AtomicIntegerArray(MAX_TASKS);
    private final AtomicInteger created = new AtomicInteger();
    private final AtomicLong settled = new AtomicLong(); // ran, or cancelled before running
    private final AtomicBoolean generating = new AtomicBoolean(true);

    @Test
    void nothingIsLostOrRunTwiceAndCloseLeavesNothingBehind() throws InterruptedException {
        FailureModelTest.LimitedFactory factory = new FailureModelTest.LimitedFactory(Integer.MAX_VALUE, 5);
        AtomicLong handled = new AtomicLong();
        GmpScheduler s = GmpScheduler.builder().procs(2).maxCarriers(16).keepAlive(Duration.ofMillis(50))
                .timeSlice(Duration.ofMillis(2)).threadFactory(factory)
                .uncaughtExceptionHandler((thread, failure) -> handled.incrementAndGet())
                .injectLoopFault(() -> {
                    if (ThreadLocalRandom.current().nextInt(20_000) == 0) {
                        throw new OutOfMemoryError("injected in a carrier's loop");
                    }
                }).build();
        List<Thread> outside = new ArrayList<>();
        long end = System.nanoTime() + SOAK.toNanos();
        for (int t = 0; t < 2; t++) {
            long seed = 17 + t;
            outside.add(Thread.ofPlatform().name("chaos-outside-" + t).start(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                while (System.nanoTime() - end < 0) {
                    for (int i = 0; i < 32; i++) {
                        submit(s, random, Placement.LOCAL);
                    }
                    LockSupport.parkNanos(random.nextLong(200_000));
                }
            }));
        }
        for (Thread thread : outside) {
            thread.join();
        }
        generating.set(false);
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (settled.get() != created.get()) {
            if (System.nanoTime() - deadline > 0) {
                fail((created.get() - settled.get()) + " of " + created.get() + " tasks never ran\n" + s.snapshot());
            }
            Thread.sleep(10);
        }
        Probe.closeWithin(s, BOUND);
        int n = created.get();
        assertTrue(n > 10_000, "only " + n + " tasks: the soak tested little");
        for (int id = 0; id < n; id++) {
            int expected = cancelled.get(id) == 1 ? 0 : 1;
            if (runs.get(id) != expected) {
                fail("task " + id + " ran " + runs.get(id) + " times, expected " + expected + "\n" + s.snapshot());
            }
        }
        for (Thread carrier : factory.threads()) {
            carrier.join(BOUND.toMillis());
            assertFalse(carrier.isAlive(), carrier + " still alive after close");
        }
        SchedulerSnapshot after = s.snapshot();
        FailureModelTest.assertQuiet(after);
        assertTrue(factory.refused.get() > 0, "no start was refused: the soak did not test failed starts");
        assertTrue(after.failures() >= factory.refused.get(), after.toString());
        assertTrue(handled.get() > 0);
        System.out.println("chaos soak: " + n + " tasks, " + factory.threads().size() + " carriers made, "
                + factory.refused.get() + " refused, " + after.failures() + " failures, "
                + after.handoffs() + " hand-offs, " + after.preemptRequests() + " preemption requests");
    }

    /** Creates a task with a random behaviour and queues it. Any thread. */
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
            settled.incrementAndGet();
            act(s, action, new SplittableRandom(seed));
        };
        if (action < 8) { // a timer that fires: a sleep
            s.schedule(task, random.nextLong(3_000_000));
        } else if (action < 14) { // a timeout, cancelled before it fires (or not: then it runs)
            Future<?> timeout = s.schedule(task, 50_000_000);
            if (timeout.cancel(false)) {
                cancelled.set(id, 1);
                settled.incrementAndGet();
            }
        } else {
            s.submit(task, placement);
        }
    }

    private void act(GmpScheduler s, int action, SplittableRandom random) {
        if (action < 30 && generating.get()) { // spawn children, with every placement
            Placement[] placements = Placement.values();
            for (int i = random.nextInt(1, 3); i > 0; i--) {
                submit(s, random, placements[random.nextInt(placements.length)]);
            }
        } else if (action < 40) {
            throw new IllegalStateException("a task failed (injected)");
        } else if (action < 44) {
            throw new AssertionError("a task threw an Error (injected)");
        } else if (action < 50) {
            Thread.currentThread().interrupt(); // left set for whoever runs next on this carrier
        } else if (action < 53) {
            LockSupport.parkNanos(random.nextLong(200_000, 3_000_000)); // blocks the carrier: a hand-off
        } else if (action < 60) {
            Probe.spin(Duration.ofNanos(random.nextLong(50_000)));
        } // the rest: an empty task
    }
}
