package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GmpSchedulerTest {

    @Test
    void defaults() {
        try (GmpScheduler s = GmpScheduler.builder().build()) {
            assertEquals(Runtime.getRuntime().availableProcessors(), s.procs());
            assertEquals(256, s.maxCarriers());
            assertEquals(Duration.ofMillis(10), s.timeSlice());
            assertEquals("gmp", s.name());
        }
    }

    /**
     * A keep-alive (or time slice) beyond what nanoseconds hold, as {@code ChronoUnit.FOREVER}'s,
     * is taken as about 292 years: every carrier used to die of an {@code ArithmeticException} the
     * first time it looked for a P, in a loop, so that no task ever ran and close() hung.
     */
    @Test
    void aKeepAliveOrTimeSliceBeyondNanosecondsIsTakenAsTheLongestSpan() {
        Duration forever = java.time.temporal.ChronoUnit.FOREVER.getDuration();
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        GmpScheduler s = GmpScheduler.builder().procs(2).keepAlive(forever).timeSlice(forever)
                .uncaughtExceptionHandler(reports).build();
        assertEquals(Duration.ofNanos(Long.MAX_VALUE), s.keepAlive());
        assertEquals(Duration.ofNanos(Long.MAX_VALUE), s.timeSlice());
        CountDownLatch ran = new CountDownLatch(100);
        for (int i = 0; i < 100; i++) {
            s.execute(ran::countDown);
        }
        Probe.await(ran, Probe.BOUND, s, "100 tasks to run");
        // More carriers than Ps, so that some are spare and wait out their keep-alive.
        CountDownLatch blocked = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) {
            s.execute(() -> {
                try {
                    blocked.await(Probe.BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS); // blocks the carrier
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        Probe.awaitTrue(() -> s.snapshot().handoffs() > 0 || s.snapshot().carriers() > 2, Probe.BOUND, s, "a spare carrier");
        blocked.countDown();
        Probe.closeWithin(s, Probe.BOUND);
        assertEquals(0, s.snapshot().failures(), reports.all.toString());
        assertTrue(reports.all.isEmpty(), reports.all.toString());
    }

    @Test
    void badConfigurationNamesTheSettingAndTheValue() {
        assertMessage("procs must be at least 1, was 0", () -> GmpScheduler.builder().procs(0));
        assertMessage("maxCarriers must be at least 1, was -3", () -> GmpScheduler.builder().maxCarriers(-3));
        assertMessage("maxCarriers must be at least procs (4), was 2",
                () -> GmpScheduler.builder().procs(4).maxCarriers(2).build());
        assertMessage("timeSlice must be positive, was PT0S", () -> GmpScheduler.builder().timeSlice(Duration.ZERO));
        assertMessage("timeSlice must be positive, was PT-0.001S",
                () -> GmpScheduler.builder().timeSlice(Duration.ofMillis(-1)));
        assertMessage("name must not be blank, was \" \"", () -> GmpScheduler.builder().name(" "));
        assertThrows(NullPointerException.class, () -> GmpScheduler.builder().uncaughtExceptionHandler(null));
    }

    private static void assertMessage(String expected, Runnable configure) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, configure::run);
        assertEquals(expected, e.getMessage());
    }

    @Test
    void nullTaskIsRejectedWithNullPointerException() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            assertThrows(NullPointerException.class, () -> s.execute(null));
            assertThrows(NullPointerException.class, () -> s.submit(() -> { }, null));
        }
    }

    @Test
    void carriersAreDaemonThreadsNamedAfterTheScheduler() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("pool").build()) {
            AtomicReference<Thread> seen = new AtomicReference<>();
            CountDownLatch done = new CountDownLatch(1);
            s.execute(() -> {
                seen.set(Thread.currentThread());
                done.countDown();
            });
            Probe.await(done, Probe.BOUND, s, "the task");
            Thread carrier = seen.get();
            assertTrue(carrier.getName().matches("pool-M\\d+"), carrier.getName());
            assertTrue(carrier.isDaemon());
            assertFalse(carrier.isVirtual());
            assertTrue(s.isCarrier(carrier));
            assertFalse(s.isCarrier(Thread.currentThread()));
        }
    }

    @Test
    void closeRunsEveryQueuedTaskThenRejectsOutsideWorkAndStopsCarriers() {
        GmpScheduler s = GmpScheduler.builder().procs(2).build();
        AtomicInteger ran = new AtomicInteger();
        List<Thread> carriers = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            s.execute(() -> {
                carriers.add(Thread.currentThread());
                // Work submitted by running tasks is still accepted while closing.
                s.execute(ran::incrementAndGet);
                Probe.spin(Duration.ofNanos(1_000L * (20)));
                ran.incrementAndGet();
            });
        }
        Probe.closeWithin(s, Probe.BOUND);
        assertEquals(4_000, ran.get(), "close() returns only after the queued work and its children ran");
        assertTrue(s.isClosed());
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> s.execute(() -> { }));
        assertEquals("scheduler gmp is closed", e.getMessage());
        for (Thread carrier : carriers) {
            assertFalse(carrier.isAlive(), carrier + " still alive after close");
        }
        assertEquals(0, s.snapshot().carriers());
        s.close(); // idempotent
    }

    @Test
    void closeOfAnIdleSchedulerReturnsAtOnce() {
        GmpScheduler s = GmpScheduler.builder().procs(2).build();
        CountDownLatch ran = new CountDownLatch(2);
        s.execute(ran::countDown); // carriers started, then parked idle: close must wake them, not wait out
        s.execute(ran::countDown); // their keep-alive (30 s) or sysmon's longest sleep
        Probe.await(ran, Probe.BOUND, s, "two tasks");
        Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, Probe.BOUND, s, "both Ps idle");
        Probe.closeWithin(s, Duration.ofSeconds(5)); // a bound a loaded machine meets; keep-alive is 30 s
        assertTrue(s.isClosed());
        assertEquals(0, s.snapshot().carriers());
        assertThrows(RejectedExecutionException.class, () -> s.execute(() -> { }));
    }

    @Test
    void closeFromATaskDoesNotWaitForItself() {
        GmpScheduler s = GmpScheduler.builder().procs(1).build();
        CountDownLatch closed = new CountDownLatch(1);
        s.execute(() -> {
            s.close();
            closed.countDown();
        });
        Probe.await(closed, Probe.BOUND, s, "close() from a task to return");
        assertTrue(s.isClosed());
        s.close(); // from outside: now waits for quiescence and stops the carriers
        assertEquals(0, s.snapshot().carriers());
    }

    @Test
    void aThrowingTaskGoesToTheHandlerAndTheCarrierGoesOn() {
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> failedOn = new CopyOnWriteArrayList<>();
        try (GmpScheduler s = GmpScheduler.builder().procs(1)
                .uncaughtExceptionHandler((t, e) -> {
                    failedOn.add(t);
                    failures.add(e);
                    if (e instanceof IllegalStateException) {
                        throw new RuntimeException("the handler fails too");
                    }
                }).build()) {
            CountDownLatch after = new CountDownLatch(1);
            AtomicReference<Thread> carrierAfter = new AtomicReference<>();
            s.execute(() -> { throw new IllegalArgumentException("boom"); });
            s.execute(() -> { throw new IllegalStateException("boom again"); });
            s.execute(() -> { throw new StackOverflowError(); });
            s.execute(() -> {
                carrierAfter.set(Thread.currentThread());
                after.countDown();
            });
            Probe.await(after, Probe.BOUND, s, "the task after the failures");
            // On a loaded machine a carrier printing the failing handler's trace can block long
            // enough for sysmon to hand its P off: the reports may then come from two carriers.
            Probe.awaitTrue(() -> failures.size() == 3, Probe.BOUND, s, "three reports");
            assertEquals(Set.of(IllegalArgumentException.class, IllegalStateException.class, StackOverflowError.class),
                    Set.copyOf(failures.stream().map(Object::getClass).toList()));
            for (Thread carrier : failedOn) {
                assertTrue(carrier.isAlive(), carrier + " did not survive a failing task");
            }
            assertTrue(failedOn.contains(carrierAfter.get()) || s.snapshot().handoffs() > 0,
                    "the task after the failures ran on a carrier that ran none of them, without a hand-off");
        }
    }

    @Test
    void theCarrierLocatorDecidesWhetherASubmissionIsLocal() {
        // A locator that never sees a carrier: even RUNNEXT submissions from a carrier go global.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            LoomSupport.carrierLocator(s, () -> null);
            CountDownLatch done = new CountDownLatch(100);
            s.execute(() -> {
                for (int i = 0; i < 100; i++) {
                    s.submit(done::countDown, Placement.RUNNEXT);
                }
            });
            Probe.await(done, Probe.BOUND, s, "the children");
            SchedulerSnapshot snap = s.snapshot();
            assertEquals(0, snap.runnextHits(), snap.toString());
            assertEquals(101, snap.globalGrabs() + snap.fairnessTickGrabs(), snap.toString());
        }
        // The default locator sees the carrier: the same submissions are hand-offs.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            CountDownLatch done = new CountDownLatch(100);
            s.execute(() -> {
                for (int i = 0; i < 100; i++) {
                    s.submit(done::countDown, Placement.RUNNEXT);
                }
            });
            Probe.await(done, Probe.BOUND, s, "the children");
            assertEquals(1, s.snapshot().runnextHits(), "the last one stays in runnext, the others were displaced");
            assertEquals(99, s.snapshot().localPops());
        }
    }

    @Test
    void snapshotAndSchedtraceLine() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("snap").latencySample(1).build()) {
            SchedulerSnapshot idle = s.snapshot();
            assertEquals("snap", idle.name());
            assertEquals(2, idle.procs());
            assertEquals(2, idle.idleProcs());
            assertEquals(0, idle.carriers());
            assertEquals(2, idle.processors().size());
            assertEquals("SCHED 1003ms: gomaxprocs=2 idleprocs=2 threads=0 spinningthreads=0 idlethreads=0 runqueue=0 [0 0]"
                    + " latp50=- latp99=-", idle.schedtraceLine(1003), "nothing sampled yet");

            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch queued = new CountDownLatch(1);
            s.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                queued.countDown();
            });
            Probe.await(started, Probe.BOUND, s, "the blocking task to start");
            SchedulerSnapshot busy = s.snapshot();
            assertTrue(busy.idleProcs() <= 1, busy.toString());
            assertTrue(busy.carriers() >= 1, busy.toString());
            assertTrue(busy.schedtraceLine(5).startsWith("SCHED 5ms: gomaxprocs=2 idleprocs="), busy.schedtraceLine(5));
            release.countDown();
            Probe.await(queued, Probe.BOUND, s, "the task to end");
            Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, Probe.BOUND, s, "both Ps idle again");
            assertEquals(1, s.snapshot().tasksRun());
            String line = s.snapshot().schedtraceLine(7);
            assertTrue(line.matches("SCHED 7ms: .* \\[0 0] latp50=\\d+(\\.\\d)?(us|ms|s) latp99=\\d+(\\.\\d)?(us|ms|s)"),
                    "the one task, sampled: " + line);
        }
    }

    /** A task that holds its P until released: its class is how a snapshot names it. */
    private record Holder(CountDownLatch started, CountDownLatch release) implements Runnable {
        @Override
        public void run() {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static SchedulerSnapshot.ProcessorSnapshot runningP(SchedulerSnapshot snapshot) {
        return snapshot.processors().stream().filter(p -> p.running() != null).findFirst().orElse(null);
    }

    @Test
    void snapshotShowsTheTaskEachPRunsAndHowLongItHasRun() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("running").build()) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.execute(new Holder(started, release));
            Probe.await(started, Probe.BOUND, s, "the holding task to start");
            try {
                // Sysmon looks at a busy P at least every 10 ms; until its first look the time is 0.
                Probe.awaitTrue(() -> runningP(s.snapshot()) != null && runningP(s.snapshot()).runningNanos() > 0,
                        Probe.BOUND, s, "sysmon to see the task running");
                long before = System.nanoTime();
                SchedulerSnapshot.ProcessorSnapshot first = runningP(s.snapshot());
                assertEquals("running", first.state(), first.toString());
                assertEquals("task " + Holder.class.getName(), first.running());
                Thread.sleep(200);
                SchedulerSnapshot later = s.snapshot();
                long between = System.nanoTime() - before;
                SchedulerSnapshot.ProcessorSnapshot again = later.processors().get(first.id());
                assertEquals(first.running(), again.running(), later.toString());
                long grew = again.runningNanos() - first.runningNanos();
                // The same first look: the figure grows with the clock, neither faster nor slower.
                assertTrue(grew >= 200_000_000 && grew <= between, grew + " ns over " + between + " ns\n" + later);
                assertTrue(later.toString().contains(" running=task " + Holder.class.getName() + " for "), later.toString());
            } finally {
                release.countDown();
            }
            Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, Probe.BOUND, s, "both Ps idle again");
            for (SchedulerSnapshot.ProcessorSnapshot p : s.snapshot().processors()) {
                assertEquals("idle", p.state());
                assertEquals(null, p.running());
                assertEquals(-1, p.runningNanos());
            }
        }
    }

    @Test
    void aRunningVirtualThreadIsNamedByItsIdAndNameAndAFailingLookupByTheTaskClass() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("described").withoutSysmon().build()) {
            Thread worker = Thread.ofVirtual().name("worker-7").unstarted(() -> { });
            Thread unnamed = Thread.ofVirtual().unstarted(() -> { });
            AtomicReference<Thread> owner = new AtomicReference<>(worker);
            LoomSupport.taskThread(s, task -> {
                Thread thread = owner.get();
                if (thread == null) {
                    throw new IllegalStateException("taskThread failed (test)");
                }
                return thread;
            });
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            s.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Probe.await(started, Probe.BOUND, s, "the holding task to start");
            try {
                SchedulerSnapshot.ProcessorSnapshot p = s.snapshot().processors().getFirst();
                assertEquals("VT " + worker.threadId() + " worker-7", p.running());
                assertEquals(-1, p.runningNanos(), "without sysmon nobody times the task");
                owner.set(unnamed);
                assertEquals("VT " + unnamed.threadId(), s.snapshot().processors().getFirst().running());
                owner.set(null);
                assertEquals("task " + GmpSchedulerTest.class.getName() + " lambda",
                        s.snapshot().processors().getFirst().running());
            } finally {
                release.countDown();
            }
        }
    }
}
