package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The failure model (see {@code Carriers}): no task is lost or run twice, every P has one holder
 * or sits idle with an empty queue, a failure is reported once with its cause, the scheduler
 * degrades instead of hanging, and {@code close()} always terminates. One test per fault found in
 * the code before the model existed; each failed then.
 */
class FailureModelTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    /** A carrier factory that remembers its threads and refuses to make more than {@code limit}. */
    static final class LimitedFactory implements ThreadFactory {
        final List<Thread> made = new ArrayList<>();
        final AtomicInteger refused = new AtomicInteger();
        volatile int limit;
        /** Beyond the first two carriers, refuse about one start in this many too (0: never). */
        final int refuseOneIn;

        LimitedFactory(int limit) {
            this(limit, 0);
        }

        LimitedFactory(int limit, int refuseOneIn) {
            this.limit = limit;
            this.refuseOneIn = refuseOneIn;
        }

        @Override
        public synchronized Thread newThread(Runnable carrier) {
            if (made.size() >= limit || refuseOneIn > 0 && made.size() >= 2
                    && java.util.concurrent.ThreadLocalRandom.current().nextInt(refuseOneIn) == 0) {
                refused.incrementAndGet();
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached (test)");
            }
            Thread thread = Thread.ofPlatform().daemon().name("limited-M" + made.size()).unstarted(carrier);
            made.add(thread);
            return thread;
        }

        synchronized List<Thread> threads() {
            return List.copyOf(made);
        }
    }

    /** The reports that reach the uncaught-exception handler. */
    static final class Reports implements Thread.UncaughtExceptionHandler {
        final ConcurrentLinkedQueue<Throwable> all = new ConcurrentLinkedQueue<>();

        @Override
        public void uncaughtException(Thread thread, Throwable failure) {
            all.add(failure);
        }

        long schedulerFailures(SchedulerFailure.Site site) {
            return all.stream().filter(f -> f instanceof SchedulerFailure sf && sf.site() == site).count();
        }
    }

    // ---------------------------------------------------------------- 1. interrupts

    @Test
    void aTaskThatInterruptsItsCarrierDoesNotLeaveTheFlagToTheNextTask() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            AtomicBoolean nextSawInterrupt = new AtomicBoolean(true);
            CountDownLatch done = new CountDownLatch(1);
            s.execute(() -> {
                Thread.currentThread().interrupt();
                s.execute(() -> { // local: the same carrier runs it next
                    nextSawInterrupt.set(Thread.currentThread().isInterrupted());
                    done.countDown();
                });
            });
            Probe.await(done, BOUND, s, "the next task");
            assertFalse(nextSawInterrupt.get(), "the next task saw the previous task's interrupt");
        }
    }

    @Test
    void anInterruptedIdleCarrierDoesNotSpin() throws InterruptedException {
        LimitedFactory factory = new LimitedFactory(100);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).threadFactory(factory).build()) {
            CountDownLatch ran = new CountDownLatch(1);
            s.execute(() -> {
                Thread.currentThread().interrupt(); // left set when the task returns
                ran.countDown();
            });
            Probe.await(ran, BOUND, s, "the task");
            Probe.awaitTrue(() -> s.snapshot().idleCarriers() == 1, BOUND, s, "the carrier to park");
            Thread carrier = factory.threads().getFirst();
            carrier.interrupt(); // and from outside, while parked
            ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            long before = threads.getThreadCpuTime(carrier.threadId());
            Thread.sleep(500);
            long cpuMillis = (threads.getThreadCpuTime(carrier.threadId()) - before) / 1_000_000;
            // A carrier whose parks return at once burns the whole half second (285 ms measured).
            assertTrue(cpuMillis < 100, "an idle carrier used " + cpuMillis + " ms of CPU in 500 ms");
        }
    }

    // ---------------------------------------------------------------- 2. a carrier that dies

    @Test
    void aCarrierThatFailsOutsideATaskGivesItsWorkBackAndTheRestRuns() {
        int tasks = 2_000;
        AtomicInteger beforeTask = new AtomicInteger();
        Reports reports = new Reports();
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        GmpScheduler s = GmpScheduler.builder().procs(2).uncaughtExceptionHandler(reports)
                .injectLoopFault(() -> {
                    int n = beforeTask.incrementAndGet();
                    if (n == 10 || n == 500 || n == 501) {
                        throw new OutOfMemoryError("injected in the loop, outside a task (" + n + ")");
                    }
                }).build();
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            s.execute(() -> {
                runs.incrementAndGet(id);
                Probe.spin(Duration.ofNanos(5_000));
                done.countDown();
            });
        }
        Probe.await(done, BOUND, s, "every task, though three carriers failed");
        Probe.closeWithin(s, BOUND);
        for (int i = 0; i < tasks; i++) {
            assertEquals(1, runs.get(i), "task " + i + " ran " + runs.get(i) + " times");
        }
        SchedulerSnapshot after = s.snapshot();
        assertEquals(3, after.failures(), after.toString());
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER) >= 1, "reported: " + reports.all);
        assertQuiet(after);
    }

    @Test
    void aFailingTaskThreadFunctionCostsOnlyEventsWhileRecording() throws Exception {
        Reports reports = new Reports();
        try (jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            recording.enable("loomgmp.Run");
            recording.start();
            GmpScheduler s = GmpScheduler.builder().procs(2).uncaughtExceptionHandler(reports).build();
            io.loomgmp.dispatcher.loom.LoomSupport.taskThread(s, task -> {
                throw new IllegalStateException("taskThread failed (test)");
            });
            int tasks = 500;
            CountDownLatch done = new CountDownLatch(tasks);
            for (int i = 0; i < tasks; i++) {
                s.execute(done::countDown);
            }
            Probe.await(done, BOUND, s, "every task while the events fail");
            Probe.closeWithin(s, BOUND);
            SchedulerSnapshot after = s.snapshot();
            assertTrue(after.failures() >= 1, after.toString());
            assertTrue(reports.schedulerFailures(SchedulerFailure.Site.EVENT) >= 1, "reported: " + reports.all);
            // Reported once per site and second, not once per event.
            assertTrue(reports.all.size() <= 4, reports.all.size() + " reports: " + reports.all);
            assertQuiet(after);
        }
    }

    // ---------------------------------------------------------------- 3 and 4. failed thread starts

    @Test
    void submissionsNeverThrowWhenCarriersCannotBeStartedAndEveryTaskRunsOnce() {
        LimitedFactory factory = new LimitedFactory(1); // one carrier, for two Ps
        Reports reports = new Reports();
        int tasks = 5_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        GmpScheduler s = GmpScheduler.builder().procs(2).threadFactory(factory).uncaughtExceptionHandler(reports).build();
        CountDownLatch done = new CountDownLatch(tasks);
        List<Thread> submitters = new ArrayList<>();
        AtomicInteger thrown = new AtomicInteger();
        for (int t = 0; t < 2; t++) {
            int first = t * tasks / 2;
            submitters.add(Thread.ofPlatform().start(() -> {
                for (int i = first; i < first + tasks / 2; i++) {
                    int id = i;
                    try {
                        s.execute(() -> {
                            runs.incrementAndGet(id);
                            done.countDown();
                        });
                    } catch (Throwable e) {
                        thrown.incrementAndGet(); // a retry here would run the task twice
                    }
                }
            }));
        }
        for (Thread submitter : submitters) {
            try {
                submitter.join(BOUND);
            } catch (InterruptedException e) {
                fail(e);
            }
        }
        assertEquals(0, thrown.get(), "submissions threw after queueing their task");
        Probe.await(done, BOUND, s, "every task on the one carrier there is");
        Probe.closeWithin(s, BOUND);
        for (int i = 0; i < tasks; i++) {
            assertEquals(1, runs.get(i), "task " + i);
        }
        assertTrue(factory.refused.get() > 0, "the factory was never asked for a second carrier");
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER_START) >= 1, "reported: " + reports.all);
        assertTrue(reports.all.size() < factory.refused.get() || factory.refused.get() == 1,
                "each refused start reached the handler: " + reports.all.size());
        try {
            assertQuiet(s.snapshot());
        } catch (AssertionError e) {
            // Say which carrier threads were still there, and where (a carrier that had left the
            // live set before it was counted out once let close() return with it still counted).
            StringBuilder threads = new StringBuilder();
            for (Thread thread : factory.made) {
                threads.append('\n').append(thread).append(' ').append(thread.getState());
                for (StackTraceElement frame : thread.getStackTrace()) {
                    threads.append("\n    at ").append(frame);
                }
            }
            throw new AssertionError(e.getMessage() + "\ncarrier threads made:" + threads, e);
        }
    }

    @Test
    void aHandOffWhoseCarrierCannotStartLeavesNoWorkOnAnIdleP() throws InterruptedException {
        LimitedFactory factory = new LimitedFactory(2);
        Reports reports = new Reports();
        GmpScheduler s = GmpScheduler.builder().procs(2).threadFactory(factory).uncaughtExceptionHandler(reports).build();
        CountDownLatch bothRunning = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        int queued = 50;
        CountDownLatch queuedRan = new CountDownLatch(queued);
        // P1: a computing task keeps its P for a second, so nobody can steal from P0 meanwhile.
        // P0: a task queues work on its own ring, then blocks: sysmon hands P0 off, and the
        // factory refuses the new carrier.
        s.execute(() -> {
            bothRunning.countDown();
            Probe.block(bothRunning);
            Probe.spin(Duration.ofSeconds(1));
        });
        s.execute(() -> {
            bothRunning.countDown();
            Probe.block(bothRunning);
            for (int i = 0; i < queued; i++) {
                s.execute(queuedRan::countDown); // P0's ring
            }
            Probe.block(release);
        });
        try {
            Probe.awaitTrue(() -> factory.refused.get() > 0, BOUND, s, "a hand-off's carrier start to fail");
            // Work left on the idle P would wait forever: nobody steals from an idle P.
            Probe.await(queuedRan, BOUND, s, "the work queued behind the blocked task");
        } finally {
            release.countDown();
        }
        Probe.closeWithin(s, BOUND);
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER_START) >= 1, "reported: " + reports.all);
        assertQuiet(s.snapshot());
    }

    @Test
    void sysmonGoesOnAfterAFailedHandOff() {
        LimitedFactory factory = new LimitedFactory(2);
        Reports reports = new Reports();
        GmpScheduler s = GmpScheduler.builder().procs(2).threadFactory(factory).uncaughtExceptionHandler(reports).build();
        CountDownLatch bothRunning = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch queuedRan = new CountDownLatch(1);
        AtomicBoolean stop = new AtomicBoolean();
        s.execute(() -> { // P1: computes until told to stop
            bothRunning.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        s.execute(() -> { // P0: queues a task behind itself and blocks
            bothRunning.countDown();
            Probe.block(bothRunning);
            s.execute(queuedRan::countDown);
            Probe.block(release);
        });
        try {
            Probe.awaitTrue(() -> factory.refused.get() > 0, BOUND, s, "the hand-off's carrier start to fail");
            // Sysmon survived the failed start: once threads can be had again, it starts a
            // carrier for the work the failed hand-off left on the global queue.
            factory.limit = 100;
            Probe.await(queuedRan, BOUND, s, "the queued task, once threads can be had");
        } finally {
            stop.set(true);
            release.countDown();
        }
        Probe.closeWithin(s, BOUND);
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER_START) >= 1, "reported: " + reports.all);
        assertQuiet(s.snapshot());
    }

    // ---------------------------------------------------------------- 5. the owner lease and the lock

    @Test
    void aTaskWhoseRingOverflowsDoesNotWaitForTheSchedulerLock() {
        GmpScheduler s = GmpScheduler.builder().procs(1).build();
        Scheduling scheduling = TimersTest.schedulingOf(s);
        CountDownLatch submitted = new CountDownLatch(1);
        CountDownLatch all = new CountDownLatch(3 * RunQueue.CAPACITY);
        s.execute(() -> { }); // start the carrier, and let it park: parking takes the lock
        Probe.awaitTrue(() -> s.snapshot().idleCarriers() == 1, BOUND, s, "the carrier to park");
        scheduling.lock.lock();
        try {
            s.execute(() -> {
                for (int i = 0; i < 3 * RunQueue.CAPACITY; i++) {
                    s.execute(all::countDown); // overflows the ring twice
                }
                submitted.countDown();
            });
            // The overflow moves half the ring to the global queue without the scheduler lock:
            // a virtual thread holding its P's lease must not unmount waiting for a lock.
            Probe.await(submitted, BOUND, s, "the overflowing task, while the scheduler lock is held");
        } finally {
            scheduling.lock.unlock();
        }
        Probe.await(all, BOUND, s, "the overflowed tasks");
        assertTrue(s.snapshot().overflows() >= 2, s.snapshot().toString());
        Probe.closeWithin(s, BOUND);
    }

    // ---------------------------------------------------------------- 6. stale preemption requests

    @Test
    void noPreemptionRequestOutlivesItsTask() {
        GmpScheduler s = GmpScheduler.builder().procs(2).timeSlice(Duration.ofMillis(1)).build();
        // Tasks about as long as the time slice: sysmon's requests race with the tasks' ends
        // and with Ps going idle.
        for (int round = 0; round < 20; round++) {
            CountDownLatch done = new CountDownLatch(20);
            for (int i = 0; i < 20; i++) {
                s.execute(() -> {
                    Probe.spin(Duration.ofNanos(java.util.concurrent.ThreadLocalRandom.current().nextLong(500_000, 2_500_000)));
                    done.countDown();
                });
            }
            Probe.await(done, BOUND, s, "round " + round);
            Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, BOUND, s, "every P idle");
            assertEquals(0, s.snapshot().pendingPreemptRequests(), "a request stayed on an idle P\n" + s.snapshot());
        }
        assertTrue(s.snapshot().preemptRequests() > 0, "sysmon never asked: the test tested nothing");
        Probe.closeWithin(s, BOUND);
    }

    // ---------------------------------------------------------------- 7. close() from a task

    @Test
    void closeCalledFromATaskTerminatesTheScheduler() throws InterruptedException {
        LimitedFactory factory = new LimitedFactory(100);
        GmpScheduler s = GmpScheduler.builder().procs(2).threadFactory(factory).build();
        CountDownLatch after = new CountDownLatch(100);
        s.execute(() -> {
            for (int i = 0; i < 100; i++) {
                s.execute(after::countDown); // accepted work: runs before termination
            }
            s.close();
        });
        Probe.awaitTrue(s::isTerminated, BOUND, s, "termination after close() from a task");
        assertEquals(0, after.getCount(), "work submitted before close() from a task did not run");
        for (Thread carrier : factory.threads()) {
            carrier.join(BOUND);
            assertFalse(carrier.isAlive(), carrier + " still runs after termination");
        }
        s.close(); // idempotent, and returns at once
        Probe.awaitTrue(() -> s.snapshot().carriers() == 0, BOUND, s, "every carrier counted out");
        assertQuiet(s.snapshot());
    }

    // ---------------------------------------------------------------- 8. a loaded machine

    @Test
    void computingCarriersOnALoadedMachineAreNotHandedOff() throws InterruptedException {
        // Other work (here: platform threads, twice as many as CPUs, and a thread that makes the
        // JVM stop for collections) deschedules the carriers and stops them at safepoints. That
        // is not blocking: a loaded server must not grow carriers when it has no CPU to spare.
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> load = new ArrayList<>();
        for (int i = 0; i < 2 * Runtime.getRuntime().availableProcessors(); i++) {
            load.add(Thread.ofPlatform().daemon().start(() -> {
                while (!stop.get()) {
                    Thread.onSpinWait();
                }
            }));
        }
        load.add(Thread.ofPlatform().daemon().start(() -> {
            while (!stop.get()) {
                byte[][] garbage = new byte[64][];
                for (int i = 0; i < garbage.length; i++) {
                    garbage[i] = new byte[16 * 1024];
                }
                System.gc();
                LockSupport.parkNanos(5_000_000);
            }
        }));
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            long roundsBefore = s.scheduling.sysmon.rounds;
            HandoffTest.computeAndSubmit(s, Duration.ofSeconds(60));
            long rounds = s.scheduling.sysmon.rounds - roundsBefore;
            // At least 600 ms of computing at 10 ms or less between rounds: sysmon looked at
            // the running tasks, so no hand-off is its decision, not its absence.
            assertTrue(rounds >= 10, "sysmon looked at the computing Ps in only " + rounds + " rounds");
            assertEquals(0, s.snapshot().handoffs(), s.snapshot().toString());
        } finally {
            stop.set(true);
            for (Thread thread : load) {
                thread.join();
            }
        }
    }

    // ---------------------------------------------------------------- helpers

    /** After close: nothing spins, nothing is blocked, no request is open, nothing is queued. */
    static void assertQuiet(SchedulerSnapshot s) {
        assertTrue(s.terminated(), "not terminated\n" + s);
        assertEquals(0, s.spinningCarriers(), "spinning after close\n" + s);
        assertEquals(0, s.blockedCarriers(), "blocked after close\n" + s);
        assertEquals(0, s.pendingPreemptRequests(), "preemption requests open after close\n" + s);
        assertEquals(0, s.globalQueueLength(), "global queue not empty after close\n" + s);
        assertEquals(s.procs(), s.idleProcs(), "Ps held after close\n" + s);
        assertEquals(0, s.carriers(), "carriers alive after close\n" + s);
        assertEquals(0, s.idleCarriers(), "carriers left on the idle list after close\n" + s);
        for (SchedulerSnapshot.ProcessorSnapshot p : s.processors()) {
            assertEquals(0, p.runnable(), "P" + p.id() + " has queued work after close\n" + s);
        }
    }

}
