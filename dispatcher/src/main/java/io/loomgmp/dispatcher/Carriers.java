package io.loomgmp.dispatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The carriers' threads (Go's {@code newm}/{@code mstart}/{@code mexit}): starting a carrier
 * through the scheduler's {@link ThreadFactory} ({@link #start}, or on sysmon's thread:
 * {@link #startFor}), its thread's whole life ({@link #live}), and supervision: what happens when
 * a carrier fails. A carrier without a P is {@link Parking}'s; the hand-off of a blocked carrier's
 * P is {@link HandOff}'s.
 *
 * <h2>Failure model</h2>
 * <ul>
 *   <li><b>A carrier cannot be started</b> (the factory throws or returns null; the OS refuses a
 *       thread): {@link #start} undoes the reservation, moves whatever the P it was to take had
 *       queued (a P retaken for a hand-off may have some) to the global queue, puts the P back
 *       on the idle list and reports the failure. It never throws, so a submission that wakes a
 *       carrier never fails after its task was queued. The work waits for a carrier that runs:
 *       a busy one, or one sysmon wakes again later.</li>
 *   <li><b>A carrier fails outside a task</b> (an {@code OutOfMemoryError} in the loop, a bug):
 *       {@link #live} catches it, puts the task in hand back on the global queue, gives its P
 *       back (its queue moved to the global queue), leaves the idle list and the spinning count,
 *       reports the failure, and the carrier ends. A wake-up then starts another carrier if the
 *       work needs one. So a P always has exactly one holder or sits idle with an empty queue,
 *       and no task is lost.</li>
 *   <li>What a task throws never reaches here: the loop hands it to the uncaught-exception
 *       handler and the carrier goes on.</li>
 * </ul>
 *
 * <p>The factory makes any {@code Thread}, so a carrier is found from its thread through
 * {@link CarrierTable}, which {@link #start} fills and a carrier's end empties.
 */
final class Carriers {
    private final Scheduling scheduling;
    private final ThreadFactory factory;
    private final AtomicInteger seq = new AtomicInteger();
    /** Every carrier whose thread was started and has not ended, for shutdown. */
    private final Set<Carrier> live = ConcurrentHashMap.newKeySet();
    /** {@link Processor#deferredStart}: start a carrier for the P; or one that starts spinning. */
    static final int DEFERRED_START = 1;
    static final int DEFERRED_SPINNING_START = 2;
    /** Set after a start was left to sysmon; cleared by sysmon before it looks. */
    private volatile boolean startsDeferred;

    Carriers(Scheduling scheduling, ThreadFactory factory) {
        this.scheduling = scheduling;
        this.factory = factory;
    }

    // ---------------------------------------------------------------- start

    /**
     * {@link #start} on sysmon's thread ({@link #startDeferred}): this returns null at once,
     * and sysmon starts the carrier within microseconds (it is woken). The thread factory is the
     * application's code: it may block, on a contended lock or monitor, or take long. A carrier
     * blocked there would hold its P; a virtual thread (submitting to GMP directly: the JDK pins
     * it only for its own submissions) would unmount and wait in a queue for a carrier, while the
     * P it reserved sat in transit and the spinning count it took held back every wake-up: with
     * the other carriers parked, nothing ever ran again (the soak's stall after 326 s). Sysmon
     * holds no P, and the carriers go on meanwhile. Inline on sysmon's own thread (its hand-offs
     * and wake-ups), and when sysmon is off (the tests' deterministic mode) or its thread is gone.
     * Never throws.
     */
    Carrier startFor(Processor p, boolean spinning) {
        Sysmon sysmon = scheduling.sysmon;
        if (!sysmon.enabled || Thread.currentThread() == sysmon.thread() || !sysmon.thread().isAlive()) {
            return start(p, spinning);
        }
        // The P's field, then the flag: sysmon clears the flag before it reads the fields, so a
        // start it misses leaves the flag set for its next look (volatile, sequentially consistent).
        p.deferredStart = spinning ? DEFERRED_SPINNING_START : DEFERRED_START;
        startsDeferred = true;
        sysmon.wakeForStarts();
        return null;
    }

    /** Sysmon's thread: starts the carriers left to it ({@link #startFor}). Never throws. */
    void startDeferred() {
        if (!startsDeferred) {
            return;
        }
        startsDeferred = false;
        for (int i = 0, n = scheduling.allocated; i < n; i++) {
            Processor p = scheduling.allp[i];
            int deferred = p.deferredStart;
            if (deferred != 0) {
                p.deferredStart = 0;
                start(p, deferred == DEFERRED_SPINNING_START); // gives everything back itself if it fails
            }
        }
    }

    /**
     * Starts a carrier that will take {@code p} (held by nobody), and returns it; the caller has
     * reserved it in the carrier count. Returns null if no thread could be had: then the
     * reservation is undone, {@code p}'s queue has moved to the global queue, {@code p} is idle,
     * a spinning reservation is given back, and the failure is reported. Never throws.
     */
    Carrier start(Processor p, boolean spinning) {
        Carrier m = null;
        // A carrier that starts another one waits in the kernel until it runs, for 100 µs or more
        // on a loaded machine: it must not look blocked in its task to sysmon meanwhile.
        Carrier starter = scheduling.currentCarrierThread();
        if (starter != null) {
            starter.startingCarrier = true;
        }
        try {
            // Everything that allocates is in here: an OutOfMemoryError is one more way to fail.
            m = new Carrier(scheduling, scheduling.name + "-M" + seq.getAndIncrement());
            m.spinning = spinning; // published by Thread.start
            m.nextP = p;
            Thread thread = factory.newThread(m);
            if (thread == null) {
                throw new IllegalStateException("the carrier thread factory returned null");
            }
            if (thread.getState() != Thread.State.NEW) {
                throw new IllegalStateException("the carrier thread factory returned a started thread: " + thread);
            }
            m.thread = thread;
            CarrierTable.register(m);
            live.add(m);
            thread.start();
            return m;
        } catch (Throwable failure) { // OutOfMemoryError: unable to create native thread, and the like
            startFailed(m, p, spinning, failure);
            return null;
        } finally {
            if (starter != null) {
                starter.startingCarrier = false;
            }
        }
    }

    /**
     * Undoes what {@link #start} reserved and began: {@code m} (null if not even made) never ran.
     * Never throws; each step stands on its own, with whatever memory is left.
     */
    private void startFailed(Carrier m, Processor p, boolean spinning, Throwable failure) {
        if (m != null) {
            m.nextP = null;
        }
        scheduling.idle.giveBack(p); // allocates nothing (the global queue's reserve)
        scheduling.lock.lock();
        try {
            scheduling.parking.carrierExited();
        } finally {
            scheduling.lock.unlock();
        }
        // Only after the count: close() joins the carriers in live and then finds the count
        // final (see live()).
        if (m != null && m.thread != null) {
            try {
                live.remove(m);
                CarrierTable.unregister(m);
            } catch (Throwable outOfMemory) {
                // The table keeps an entry for a thread that never started: it finds no carrier that runs.
            }
        }
        if (spinning) {
            scheduling.idle.spinnerGone();
        }
        scheduling.failures.report(SchedulerFailure.Site.CARRIER_START, failure,
                "the P stays idle and its work waits on the global queue for a running carrier");
    }

    // ---------------------------------------------------------------- life and supervision

    /** The carrier thread's whole life; any failure outside a task ends it cleanly. */
    void live(Carrier m) {
        try {
            scheduling.loop.run(m);
        } catch (Throwable failure) {
            recover(m, failure);
        } finally {
            // Counted out (and off the idle list) before it leaves live: close() joins every
            // carrier in live, so once it returns the count is final. The other order let a
            // carrier leave live, close() return, and a snapshot still count it.
            scheduling.lock.lock();
            try {
                scheduling.parking.takeCarrier(m); // ended while parked: after termination
                if (!m.retired) {
                    scheduling.parking.carrierExited();
                }
            } finally {
                scheduling.lock.unlock();
            }
            CarrierTable.unregister(m);
            live.remove(m);
        }
    }

    /**
     * Carrier {@code m}, on its own thread, failed outside a task: gives back everything it holds
     * (see the failure model above), reports it, and returns so that the carrier ends. Runs with
     * whatever memory is left; every step is independent of the ones before it.
     */
    private void recover(Carrier m, Throwable failure) {
        try {
            Runnable task = m.inHand;
            m.inHand = null;
            m.running = null;
            if (task != null) {
                scheduling.global.putMoved(task); // accepted work: queued even if closed; never fails
            }
            if (m.spinning) {
                m.spinning = false;
                scheduling.idle.spinnerGone();
            }
            Processor p = m.p;
            if (p != null) {
                if (p.holder() == m.inTask) {
                    p.leaveTask(m); // fails only if sysmon retook it: then it is not ours
                }
                if (p.holder() == m.inLoop) {
                    m.p = null;
                    scheduling.idle.giveBack(p);
                }
            }
            scheduling.lock.lock();
            try {
                scheduling.handOff.carrierFailed(m);
                if (m.parked) {
                    scheduling.parking.takeCarrier(m);
                }
                scheduling.parking.passSleep(m); // allocates nothing
            } finally {
                scheduling.lock.unlock();
            }
            Processor handed = m.nextP;
            m.nextP = null;
            if (handed != null) {
                scheduling.idle.giveBack(handed);
            }
            scheduling.lock.lock();
            try {
                scheduling.shutdown.signalIfQuiescent();
            } finally {
                scheduling.lock.unlock();
            }
        } finally {
            scheduling.failures.report(SchedulerFailure.Site.CARRIER, failure,
                    "carrier " + m.name + " handed its P and its work back and ended");
            scheduling.idle.wakeP(); // another carrier for the work it gave back
        }
    }

    // ---------------------------------------------------------------- shutdown

    /** After termination: wakes every carrier that is still alive and waits for each to end. */
    boolean joinAll() {
        boolean interrupted = false;
        List<Carrier> carriers = new ArrayList<>(live);
        for (Carrier m : carriers) {
            m.unpark();
        }
        for (Carrier m : carriers) {
            interrupted |= Shutdown.joinUninterruptibly(m.thread);
        }
        return interrupted;
    }

    /** The default factory: daemon platform threads named {@code <name>-M<n>}, in order of creation. */
    static ThreadFactory defaultFactory(String name) {
        return new NumberedFactory(name + "-M");
    }

    /**
     * Daemon platform threads named {@code prefix<n>}. Not the JDK's counting builder
     * ({@code Thread.ofPlatform().name(prefix, 0)}): its counter's first use makes a method handle
     * adapter (a class generated at run time), on sysmon's thread at the first carrier start of a
     * fresh JVM, while that carrier's P waits. Not a lambda either, which would generate a class
     * too. Thread-safe: a new builder for each thread, the count an {@link AtomicLong}.
     */
    private static final class NumberedFactory implements ThreadFactory {
        private final String prefix;
        private final AtomicLong next = new AtomicLong();

        NumberedFactory(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable task) {
            return Thread.ofPlatform().daemon().inheritInheritableThreadLocals(false)
                    .name(prefix + next.getAndIncrement()).unstarted(task);
        }
    }
}
