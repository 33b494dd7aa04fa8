package io.loomgmp.dispatcher;

import io.loomgmp.jfr.CarrierParkEvent;
import io.loomgmp.jfr.CarrierSpinEvent;
import io.loomgmp.jfr.HandoffEvent;
import io.loomgmp.jfr.PreemptEvent;
import io.loomgmp.jfr.RunEvent;
import io.loomgmp.jfr.SchedulerFailureEvent;
import io.loomgmp.jfr.StealEvent;
import io.loomgmp.jfr.WakeEvent;

import java.util.Locale;

/**
 * The one place the data path emits JFR events through: the scheduling loop, the carriers, idle
 * and sysmon call these methods by name and never touch {@code jdk.jfr}. Each call site is
 * guarded by {@link #on} (a static volatile read, false with no recording: see
 * {@link FlightRecording}); each method here asks JFR whether its event is enabled, fills it and
 * commits it.
 *
 * <p>Failure: no method here throws. What an event throws (an {@code OutOfMemoryError} while
 * allocating it, a failing {@code taskThread} function) is reported as a
 * {@link SchedulerFailure.Site#EVENT} failure and the event is dropped: a recording must never
 * cost a task or a carrier.
 *
 * <p>Events committed on a carrier's own thread go through {@link #beforeCarrierEvent} first
 * (the JDK work-around described there).
 */
final class Events {
    private Events() {
    }

    /** What one carrier's events need between two calls. Owner only (the carrier's own thread). */
    static final class OfCarrier {
        /**
         * Where the task about to run came from, for the {@code loomgmp.Run} event and the
         * latency sample ({@link RunLoop}); set whether or not a recording runs.
         */
        RunSource runSource;
        /** How the running task ended, when known ({@code RunEvent.END_*}), else null. */
        String runEnd;
        /** The open run event, or null. */
        private RunEvent run;
        /** The open {@code loomgmp.CarrierSpin} event while the carrier spins during a recording. */
        private CarrierSpinEvent spin;
        /** The open {@code loomgmp.CarrierPark} event while the carrier parks during a recording. */
        private CarrierParkEvent park;
        /**
         * A task ran on this carrier since its last own JFR event, so a virtual thread may have
         * used the event writer it shares with this carrier; see {@link #beforeCarrierEvent}.
         */
        boolean writerShared;
    }

    /** Whether a recording runs: the guard every call site checks first. */
    static boolean on() {
        return FlightRecording.on;
    }

    /**
     * Carrier {@code m}, on its own thread, is about to commit one of its events. If a task ran on
     * it since its last event, first commits a {@code loomgmp.CarrierResync}: the JDK discards the
     * first event a custom scheduler's carrier commits after a virtual thread mounted on it
     * committed one (the carrier's writer is stale), and that event, not the real one, takes the
     * loss. Not needed on a virtual thread, whose events the JDK keeps, nor on sysmon or JFR's
     * own threads, on which no virtual thread runs.
     */
    private static void beforeCarrierEvent(Carrier m) {
        if (m.events.writerShared) {
            m.events.writerShared = false;
            new io.loomgmp.jfr.CarrierResyncEvent().commit();
        }
    }

    private static void failed(Carrier m, Throwable failure) {
        failed(m.scheduling, failure);
    }

    private static void failed(Scheduling scheduling, Throwable failure) {
        if (scheduling != null) {
            scheduling.failures.report(SchedulerFailure.Site.EVENT, failure, "the event was dropped");
        }
    }

    /**
     * The {@code loomgmp.Wake} event: {@code task} was queued by the current thread ({@code m} if
     * it is one of our carriers, on P {@code p}). A task re-queueing itself (a yield) ends its run
     * instead.
     */
    static void wake(Scheduling s, Carrier m, Processor p, Runnable task, Placement placement) {
        try {
            if (m != null && m.running == task) {
                if (m.events.runEnd == null) {
                    m.events.runEnd = RunEvent.END_YIELDED; // same OS thread as m: owner-only field
                }
                return;
            }
            WakeEvent event = new WakeEvent();
            if (event.isEnabled()) {
                event.processor = p == null ? -1 : p.id;
                event.wakerThread = Thread.currentThread().threadId();
                Thread thread = s.taskThread.apply(task);
                event.virtualThread = thread == null ? 0 : thread.threadId();
                event.placement = p == null ? "global" : placement.name().toLowerCase(Locale.ROOT);
                if (m != null && Thread.currentThread() == m.thread) {
                    beforeCarrierEvent(m);
                }
                event.commit();
            }
        } catch (Throwable failure) {
            failed(s, failure);
        }
    }

    /** Carrier {@code m} is about to run a task taken from {@code m.events.runSource}. */
    static void runStarts(Carrier m) {
        try {
            m.events.writerShared = true; // the task may commit events through the carrier's writer
            RunEvent event = new RunEvent();
            event.begin();
            m.events.run = event;
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** Carrier {@code m}'s task returned; it ran on {@code p}. */
    static void runEnded(Carrier m, Processor p, Runnable task) {
        RunEvent event = m.events.run;
        if (event == null) {
            return;
        }
        m.events.run = null;
        try {
            event.end();
            if (event.shouldCommit()) {
                event.processor = p.id;
                event.carrierThread = m.threadId();
                Thread thread = m.scheduling.taskThread.apply(task);
                event.virtualThread = thread == null ? 0 : thread.threadId();
                event.source = m.events.runSource.label;
                String end = m.events.runEnd;
                event.end = end != null ? end : thread == null ? RunEvent.END_UNKNOWN
                        // A continuation run ends by a yield (known: runEnd), termination or a park.
                        : thread.getState() == Thread.State.TERMINATED ? RunEvent.END_FINISHED : RunEvent.END_PARKED;
                beforeCarrierEvent(m);
                event.commit();
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** The running task of carrier {@code m} (on its own thread) yields at a preemption poll. */
    static void yieldingAtPoll(Carrier m) {
        m.events.runEnd = RunEvent.END_PREEMPTED;
    }

    /** A new run starts: nothing known yet of how it ends. */
    static void newRun(Carrier m) {
        m.events.runEnd = null;
    }

    static void steal(Carrier m, Processor thief, Processor victim, int tasks) {
        try {
            StealEvent event = new StealEvent();
            if (event.isEnabled()) {
                event.thief = thief.id;
                event.victim = victim.id;
                event.tasks = tasks;
                beforeCarrierEvent(m);
                event.commit();
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** Sysmon asked the task running on {@code p} (carrier {@code m}) to give it up after {@code sliceNanos}. */
    static void preemptRequested(Processor p, Carrier m, long sliceNanos) {
        preempt(p, m, PreemptEvent.ACTION_REQUESTED, sliceNanos);
    }

    /** Carrier {@code m} honours a request: its loop skips runnext, or its virtual thread yields at a poll. */
    static void preemptHonoured(Processor p, Carrier m) {
        preempt(p, m, PreemptEvent.ACTION_HONOURED, 0);
    }

    private static void preempt(Processor p, Carrier m, String action, long sliceNanos) {
        try {
            PreemptEvent event = new PreemptEvent();
            if (event.isEnabled()) {
                event.processor = p.id;
                event.action = action;
                event.carrierThread = m.threadId();
                event.sliceNanos = sliceNanos;
                if (Thread.currentThread() == m.thread) { // not sysmon, nor a virtual thread at a poll
                    beforeCarrierEvent(m);
                }
                event.commit();
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** Opens the {@code loomgmp.CarrierSpin} event of a carrier that starts (or was woken to) spin. */
    static void spinStarted(Carrier m) {
        try {
            if (m.events.spin == null) {
                CarrierSpinEvent event = new CarrierSpinEvent();
                if (event.isEnabled()) {
                    event.begin();
                    m.events.spin = event;
                }
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** Closes the open spin event, if any. */
    static void spinEnded(Carrier m, boolean foundWork) {
        CarrierSpinEvent event = m.events.spin;
        if (event == null) {
            return;
        }
        m.events.spin = null;
        try {
            event.end();
            if (event.shouldCommit()) {
                event.processor = m.p == null ? -1 : m.p.id;
                event.carrierThread = m.threadId();
                event.foundWork = foundWork;
                beforeCarrierEvent(m);
                event.commit();
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    static void parkStarts(Carrier m) {
        try {
            CarrierParkEvent event = new CarrierParkEvent();
            event.begin();
            m.events.park = event;
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    static void parkEnded(Carrier m) {
        CarrierParkEvent event = m.events.park;
        if (event == null) {
            return;
        }
        m.events.park = null;
        try {
            event.end();
            if (event.shouldCommit()) {
                event.carrierThread = m.threadId();
                beforeCarrierEvent(m);
                event.commit();
            }
        } catch (Throwable failure) {
            failed(m, failure);
        }
    }

    /** Sysmon: {@code blockedNanos} is since it first saw the task, a lower bound of how long it blocked. */
    static void handoff(Processor p, Carrier from, Carrier to, long blockedNanos) {
        try {
            HandoffEvent event = new HandoffEvent();
            if (event.isEnabled()) {
                event.processor = p.id;
                event.fromCarrier = from.threadId();
                event.toCarrier = to.threadId();
                event.blockedNanos = blockedNanos;
                event.commit();
            }
        } catch (Throwable failure) {
            failed(from, failure);
        }
    }

    /** Called by {@link Failures} only; recorded whether or not a recording was known to run. */
    static void failure(String scheduler, SchedulerFailure.Site site, Throwable failure, String recovery) {
        if (!FlightRecording.available()) {
            return;
        }
        try {
            SchedulerFailureEvent event = new SchedulerFailureEvent();
            if (event.isEnabled()) {
                Carrier m = CarrierTable.of(Thread.currentThread());
                if (m != null) {
                    beforeCarrierEvent(m); // on the carrier's own thread
                }
                event.scheduler = scheduler;
                event.site = site.name().toLowerCase(Locale.ROOT).replace('_', '-');
                event.failure = String.valueOf(failure);
                event.recovery = recovery;
                event.commit();
            }
        } catch (Throwable ignored) {
            // reporting the failure of an event through an event: the counter has it
        }
    }
}
