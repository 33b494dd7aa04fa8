package io.loomgmp.soak;

import example.soak.CpuHog;
import example.soak.InitGate;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The whole body of a virtual thread of the soak's scheduler, counted once: the thread is lost if
 * its work never settles. No virtual thread of the soak fails on purpose, so whatever one throws
 * is a {@link Ledger.Violation#UNEXPECTED_FAILURE}. Its live-thread permit ({@link Work#startVirtual})
 * is given back as it ends.
 */
abstract class VirtualWork extends Once {
    final Work work;
    /** The thread that runs it; set before the thread starts. */
    volatile Thread thread;

    VirtualWork(Work work, Ledger.Kind kind) {
        super(work.ledger, kind);
        this.work = work;
    }

    @Override
    final void body() {
        try {
            live();
        } catch (Throwable e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, this + " failed: " + trace);
        } finally {
            work.liveVirtualThreads.release();
        }
    }

    abstract void live() throws Exception;

    /** Sleeps; must not wake before its time. Then, if given, runs an action: a way of acting later from a virtual thread. */
    static final class Sleeper extends VirtualWork {
        private final long nanos;
        private final Runnable then;

        Sleeper(Work work, long nanos, Runnable then) {
            super(work, Ledger.Kind.SLEEPER);
            this.nanos = nanos;
            this.then = then;
        }

        @Override
        void live() throws InterruptedException {
            long start = System.nanoTime();
            Thread.sleep(Duration.ofNanos(nanos));
            long slept = System.nanoTime() - start;
            if (slept < nanos) {
                ledger.violation(Ledger.Violation.SLEEP_EARLY, this + " slept " + slept + " ns of " + nanos);
            }
            if (then != null) {
                then.run();
            }
        }
    }

    /**
     * Parks with a timeout that an unpark from another thread may cut short: the JDK then cancels
     * the timeout's timer. Unless an unpark was issued, it must not return before its time (on
     * JDK 25 a virtual thread's timed park returns when its timer fires or it is unparked).
     */
    static final class Parker extends VirtualWork {
        private final long nanos;
        /** Written before the unpark is sent; read after the park returns. */
        private volatile boolean unparkIssued;

        Parker(Work work, long nanos) {
            super(work, Ledger.Kind.PARKER);
            this.nanos = nanos;
        }

        @Override
        void live() {
            long start = System.nanoTime();
            LockSupport.parkNanos(nanos);
            long parked = System.nanoTime() - start;
            if (unparkIssued) {
                ledger.parksUnparked.increment();
            } else if (parked < nanos) {
                ledger.violation(Ledger.Violation.PARK_EARLY, this + " returned after " + parked + " ns of " + nanos
                        + ", and nobody unparked it");
            } else {
                ledger.parksTimedOut.increment();
            }
        }

        /** Any thread: cuts the park short (or, if it has not parked yet, makes it return at once). */
        void unpark() {
            unparkIssued = true;
            LockSupport.unpark(thread);
        }
    }

    /** Waits on a monitor with a timeout ({@code Object.wait} unmounts on JDK 25, and its timeout is a timer); maybe notified first. */
    static final class Waiter extends VirtualWork {
        private final long millis;
        private boolean notified; // guarded by this

        Waiter(Work work, long millis) {
            super(work, Ledger.Kind.WAITER);
            this.millis = millis;
        }

        @Override
        void live() throws InterruptedException {
            synchronized (this) {
                if (!notified) {
                    wait(millis);
                }
                if (notified) {
                    ledger.waitsNotified.increment();
                }
            }
        }

        /** Any thread. */
        void notifyWaiter() {
            synchronized (this) {
                notified = true;
                notifyAll();
            }
        }
    }

    /** Computes for many time slices; under the agent its loop has preemption polls, so it gives its carrier up when asked. */
    static final class VirtualHog extends VirtualWork {
        private final long nanos;

        VirtualHog(Work work, long nanos) {
            super(work, Ledger.Kind.VIRTUAL_HOG);
            this.nanos = nanos;
        }

        @Override
        void live() {
            try {
                CpuHog.compute(nanos);
            } finally {
                work.virtualHogs.release();
            }
        }

        @Override
        void abandoned() {
            super.abandoned();
            work.virtualHogs.release();
        }
    }

    /** Passes an {@link InitGate}: pinned in (or waiting for) a class initialiser until the gate lets it go. */
    static final class Pinned extends VirtualWork {
        private final InitGate gate;

        Pinned(Work work, InitGate gate) {
            super(work, Ledger.Kind.PINNED);
            this.gate = gate;
        }

        @Override
        void live() {
            try {
                gate.pass();
            } catch (LinkageError e) { // the initialiser failed: ExceptionInInitializerError, then NoClassDefFoundError
                if (!gate.releaseLate()) {
                    throw e;
                } // else the initialiser reported it, when it gave up waiting
            }
        }
    }

    /**
     * Submits from a virtual thread: plain tasks with every placement (which go to its carrier's
     * P, as the bridge's carrier locator sees it), timers (in its carrier's P's heap), child
     * virtual threads; yields and sleeps between.
     */
    static final class Submitter extends VirtualWork {
        private final SplittableRandom random;

        Submitter(Work work, SplittableRandom random) {
            super(work, Ledger.Kind.SUBMITTER);
            this.random = random;
        }

        @Override
        void live() throws InterruptedException {
            for (int i = random.nextInt(5, 40); i > 0; i--) {
                int action = random.nextInt(100);
                if (action < 50) {
                    work.submitTask(random, 2);
                } else if (action < 65) {
                    work.scheduleRandomTimer(random, 1);
                } else if (action < 75) {
                    work.startRandomVirtual(random, true);
                } else if (action < 85) {
                    Thread.yield();
                } else {
                    Thread.sleep(Duration.ofNanos(random.nextLong(2_000_000)));
                }
            }
        }
    }
}
