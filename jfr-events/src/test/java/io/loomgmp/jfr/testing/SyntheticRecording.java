package io.loomgmp.jfr.testing;

import io.loomgmp.jfr.CarrierParkEvent;
import io.loomgmp.jfr.CarrierSpinEvent;
import io.loomgmp.jfr.HandoffEvent;
import io.loomgmp.jfr.PreemptEvent;
import io.loomgmp.jfr.RunEvent;
import io.loomgmp.jfr.SchedTraceEvent;
import io.loomgmp.jfr.Settings;
import io.loomgmp.jfr.StealEvent;
import io.loomgmp.jfr.WakeEvent;
import jdk.jfr.Configuration;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Records the loom-gmp events of a made-up but realistic scheduler run on two Ps, committed for
 * real from threads named like the scheduler's own, into a .jfr file:
 * <ul>
 *   <li>carrier gmp-M0 on P0: a ping-pong chain, each run waking the next virtual thread into
 *       runnext; sysmon's preemption request on P0 and its honouring; a wake-up from an outside
 *       thread followed by the run it caused (taken from the global queue);</li>
 *   <li>carrier gmp-M1 on P1: a spin that finds work, a steal from P0 and the stolen runs, a
 *       park, then a run that blocks; sysmon hands P1 to the new carrier gmp-M2, which runs P1's
 *       queue while gmp-M1 is still blocked;</li>
 *   <li>the periodic schedtrace event through {@link FlightRecorder#addPeriodicEvent}.</li>
 * </ul>
 * Virtual thread ids are made up: 100 + i on P0's chain, 200 + i stolen, 300 the blocked one,
 * 400 + i on P1 after the hand-off, 150 woken from outside.
 *
 * <p>Read back by jfr-events' {@code EventsRecordingTest} and converted by trace-viewer's tests,
 * which get it from jfr-events' test jar.
 */
public final class SyntheticRecording {
    public static final int CHAIN = 30;
    public static final int STOLEN = 2;
    public static final int AFTER_HANDOFF = 12;
    public static final long OUTSIDE_WOKEN = 150;
    public static final long BLOCKED = 300;

    private SyntheticRecording() {
    }

    /** Records the scenario with the shipped tracing settings into file. */
    public static void record(Path file) throws Exception {
        record(file, Settings.configuration(Settings.TRACE));
    }

    public static void record(Path file, Configuration configuration) throws Exception {
        AtomicLong tasksRun = new AtomicLong();
        AtomicBoolean handedOff = new AtomicBoolean();
        Runnable schedtrace = () -> {
            SchedTraceEvent e = new SchedTraceEvent();
            e.scheduler = "gmp";
            e.procs = 2;
            e.idleProcs = 0;
            e.carriers = handedOff.get() ? 3 : 2;
            e.spinningCarriers = 0;
            e.idleCarriers = 0;
            e.blockedCarriers = handedOff.get() ? 1 : 0;
            e.globalQueue = 1;
            e.localQueues = "2 1";
            e.tasksRun = tasksRun.get();
            e.commit();
        };
        FlightRecorder.addPeriodicEvent(SchedTraceEvent.class, schedtrace);
        try (Recording recording = new Recording(configuration)) {
            recording.start();
            run(tasksRun, handedOff);
            Thread.sleep(30); // let the 10 ms schedtrace fire after the last run
            recording.stop();
            recording.dump(file);
        } finally {
            FlightRecorder.removePeriodicEvent(schedtrace);
        }
    }

    private static void run(AtomicLong tasksRun, AtomicBoolean handedOff) throws Exception {
        CountDownLatch m1Blocked = new CountDownLatch(1);
        CountDownLatch handoffDone = new CountDownLatch(1);
        CountDownLatch m2Done = new CountDownLatch(1);
        CountDownLatch outsideWoke = new CountDownLatch(1);
        Thread[] m2 = new Thread[1];

        Thread m0 = new Thread(() -> {
            long carrier = Thread.currentThread().threadId();
            for (int i = 0; i < CHAIN; i++) {
                String source = i == 0 ? RunEvent.SOURCE_LOCAL : RunEvent.SOURCE_RUNNEXT;
                boolean last = i == CHAIN - 1;
                long next = 100 + i + 1;
                run(0, carrier, 100 + i, source, last ? RunEvent.END_PREEMPTED : RunEvent.END_PARKED, 150_000,
                        () -> {
                            if (!last) {
                                wake(0, carrier, next, "runnext"); // the ping-pong hand-off
                            }
                        });
                tasksRun.incrementAndGet();
            }
            PreemptEvent honoured = new PreemptEvent();
            honoured.processor = 0;
            honoured.action = PreemptEvent.ACTION_HONOURED;
            honoured.carrierThread = carrier;
            honoured.sliceNanos = 10_400_000;
            honoured.commit();
            await(outsideWoke);
            run(0, carrier, OUTSIDE_WOKEN, RunEvent.SOURCE_GLOBAL, RunEvent.END_FINISHED, 200_000, () -> {
            });
            tasksRun.incrementAndGet();
        }, "gmp-M0");

        Thread m1 = new Thread(() -> {
            long carrier = Thread.currentThread().threadId();
            CarrierSpinEvent spin = new CarrierSpinEvent();
            spin.begin();
            spinFor(60_000);
            spin.end();
            spin.processor = 1;
            spin.carrierThread = carrier;
            spin.foundWork = true;
            StealEvent steal = new StealEvent();
            steal.thief = 1;
            steal.victim = 0;
            steal.tasks = STOLEN;
            steal.commit();
            spin.commit();
            for (int i = 0; i < STOLEN; i++) {
                run(1, carrier, 200 + i, RunEvent.SOURCE_STOLEN, RunEvent.END_FINISHED, 300_000, () -> {
                });
                tasksRun.incrementAndGet();
            }
            CarrierParkEvent park = new CarrierParkEvent();
            park.begin();
            LockSupport.parkNanos(2_000_000);
            park.end();
            park.carrierThread = carrier;
            park.commit();
            // A run that blocks its carrier: sysmon hands P1 over while it is still in progress.
            run(1, carrier, BLOCKED, RunEvent.SOURCE_GLOBAL, RunEvent.END_FINISHED, 0, () -> {
                m1Blocked.countDown();
                await(handoffDone);
                await(m2Done);
                spinFor(300_000);
            });
            tasksRun.incrementAndGet();
        }, "gmp-M1");

        Thread sysmon = new Thread(() -> {
            await(m1Blocked);
            spinFor(500_000);
            PreemptEvent request = new PreemptEvent();
            request.processor = 0;
            request.action = PreemptEvent.ACTION_REQUESTED;
            request.carrierThread = m0.threadId();
            request.sliceNanos = 10_200_000;
            request.commit();
            m2[0] = new Thread(() -> {
                await(handoffDone);
                long carrier = Thread.currentThread().threadId();
                for (int i = 0; i < AFTER_HANDOFF; i++) {
                    run(1, carrier, 400 + i, RunEvent.SOURCE_LOCAL, RunEvent.END_YIELDED, 250_000, () -> {
                    });
                    tasksRun.incrementAndGet();
                }
                m2Done.countDown();
            }, "gmp-M2");
            m2[0].start();
            HandoffEvent handoff = new HandoffEvent();
            handoff.processor = 1;
            handoff.fromCarrier = m1.threadId();
            handoff.toCarrier = m2[0].threadId();
            handoff.blockedNanos = 500_000;
            handoff.commit();
            handedOff.set(true);
            handoffDone.countDown();
        }, "gmp-sysmon");

        m0.start();
        m1.start();
        sysmon.start();
        // An outside thread (a JDK timer, say) wakes a virtual thread onto the global queue.
        Thread timer = new Thread(() -> {
            spinFor(1_000_000);
            wake(-1, Thread.currentThread().threadId(), OUTSIDE_WOKEN, "global");
            outsideWoke.countDown();
        }, "VirtualThread-unparker");
        timer.start();
        for (Thread t : new Thread[]{m0, m1, sysmon, timer}) {
            t.join(30_000);
        }
        m2[0].join(30_000);
    }

    private static void run(int processor, long carrier, long vt, String source, String end, long busyNanos,
                            Runnable during) {
        RunEvent run = new RunEvent();
        run.begin();
        spinFor(busyNanos / 2);
        during.run();
        spinFor(busyNanos / 2);
        run.end();
        if (run.shouldCommit()) {
            run.processor = processor;
            run.carrierThread = carrier;
            run.virtualThread = vt;
            run.source = source;
            run.end = end;
            run.commit();
        }
    }

    private static void wake(int processor, long waker, long vt, String placement) {
        WakeEvent wake = new WakeEvent();
        if (wake.isEnabled()) {
            wake.processor = processor;
            wake.wakerThread = waker;
            wake.virtualThread = vt;
            wake.placement = placement;
            wake.commit();
        }
    }

    /** Busy, like a task on a carrier: sleeping would let the OS blur the timings less predictably. */
    private static void spinFor(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("scenario stuck");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
