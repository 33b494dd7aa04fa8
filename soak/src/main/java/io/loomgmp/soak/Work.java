package io.loomgmp.soak;

import example.soak.CpuHog;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.Placement;
import io.loomgmp.soak.VirtualWork.Parker;
import io.loomgmp.soak.VirtualWork.Sleeper;
import io.loomgmp.soak.VirtualWork.Submitter;
import io.loomgmp.soak.VirtualWork.VirtualHog;
import io.loomgmp.soak.VirtualWork.Waiter;

import java.io.PrintStream;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * The workload: every kind of work the soak makes ({@link Ledger.Kind}) and every way it reaches
 * the scheduler. Plain tasks are submitted with every {@link Placement} from whichever thread
 * calls (a platform thread, a carrier running a task or a timer, a virtual thread) and spawn
 * children, set timers, start virtual threads, throw, interrupt their carrier or block it;
 * timers fire soon or far and are cancelled now and then by another thread; virtual threads
 * sleep, park with a timeout that an unpark may cut short, wait on a monitor, compute, pin their
 * carrier in a class initialiser ({@link PinEpisodes}) or submit work themselves.
 *
 * <p>Any thread may call any method. Each unit of work gets its own {@link SplittableRandom},
 * split from its maker's, so what it does follows from the soak's seed (when it runs, and so what
 * it meets, does not: the scheduler decides that). {@link Semaphore}s bound what would otherwise
 * swamp a 2-core machine: live virtual threads, blocked carriers, CPU hogs.
 */
final class Work {
    /** How deep a tree of plain tasks spawning children may grow. */
    static final int MAX_DEPTH = 3;
    /** The longest timer, sleep or park the soak makes: draining waits at least this long. */
    static final long FAR_MAX_NANOS = Duration.ofSeconds(3).toNanos();
    private static final long FAR_MIN_NANOS = Duration.ofMillis(50).toNanos();
    private static final long SOON_MAX_NANOS = Duration.ofMillis(5).toNanos();
    /** How long a blocked task waits for its release before that counts as a violation. */
    static final Duration RELEASE_BOUND = Duration.ofSeconds(60);
    private static final Placement[] PLACEMENTS = Placement.values();

    final GmpScheduler scheduler;
    final Ledger ledger;
    private final ThreadFactory virtualThreads;
    /**
     * Acts later from a platform thread: the third way (with timers and sleeping virtual threads)
     * to unpark, notify, release or cancel. Platform threads, carriers and virtual threads all
     * schedule on it, so its queue's {@code ReentrantLock} is one they share: a plain task on a
     * carrier may wait for it while a virtual thread holds it, or is next in line for it, and
     * waits in a queue of the scheduler for a carrier. That is the blocking a scheduler meets
     * when plain tasks and virtual threads share a JDK lock, and only a hand-off of the waiting
     * carriers' Ps resolves it when every carrier waits.
     */
    private final ScheduledExecutorService platformLater;
    final Semaphore liveVirtualThreads = new Semaphore(2_000);
    final Semaphore blockedCarriers = new Semaphore(3);
    final Semaphore hogTasks = new Semaphore(2);
    final Semaphore virtualHogs = new Semaphore(3);

    private final PrintStream err;
    private final AtomicBoolean lateReleaseShown = new AtomicBoolean();

    Work(GmpScheduler scheduler, Ledger ledger, ThreadFactory virtualThreads, ScheduledExecutorService platformLater,
         PrintStream err) {
        this.scheduler = scheduler;
        this.ledger = ledger;
        this.virtualThreads = virtualThreads;
        this.platformLater = platformLater;
        this.err = err;
    }

    /** Who is calling, as the soak counts submissions. */
    Ledger.Source source() {
        Thread current = Thread.currentThread();
        return current.isVirtual() ? Ledger.Source.VIRTUAL
                : scheduler.isCarrier(current) ? Ledger.Source.CARRIER : Ledger.Source.PLATFORM;
    }

    // ---------------------------------------------------------------- plain tasks

    /** A plain task with a random placement; it may spawn {@code depth} more levels. */
    void submitTask(SplittableRandom random, int depth) {
        submitTaskWith(random, depth, PLACEMENTS[random.nextInt(PLACEMENTS.length)]);
    }

    /** A plain task queued where {@code placement} says (from a carrier; elsewhere it goes to the global queue). */
    void submitTaskWith(SplittableRandom random, int depth, Placement placement) {
        submit(new PlainTask(this, random.split(), depth), placement);
    }

    /** A task that blocks its carrier (a timed park, or a wait for a release from elsewhere), if fewer than 3 do now. */
    void submitBlockingTask(SplittableRandom random) {
        if (blockedCarriers.tryAcquire()) {
            submit(new BlockingTask(this, random.split()), PLACEMENTS[random.nextInt(PLACEMENTS.length)]);
        }
    }

    /** A task that computes for 5 to 40 ms (many time slices, and a plain task cannot be preempted), if fewer than 2 do now. */
    void submitHogTask(SplittableRandom random) {
        if (hogTasks.tryAcquire()) {
            submit(new HogTask(this, random.nextLong(Duration.ofMillis(5).toNanos(), Duration.ofMillis(40).toNanos())),
                    PLACEMENTS[random.nextInt(PLACEMENTS.length)]);
        }
    }

    private void submit(Once task, Placement placement) {
        Ledger.Source source = source();
        try {
            scheduler.submit(task, placement);
        } catch (Throwable e) {
            task.abandoned();
            ledger.violation(Ledger.Violation.OPERATION_FAILED, "submit(" + placement + ") from " + source.label + ": " + e);
            return;
        }
        ledger.submitted(source, placement);
    }

    // ---------------------------------------------------------------- timers

    /**
     * A timer due at once, soon (up to 5 ms) or far (50 ms to 3 s) that does something random when
     * it fires; about a third are cancelled later from another thread (before or after they fire),
     * a few at once by their maker.
     */
    void scheduleRandomTimer(SplittableRandom random, int depth) {
        int shape = random.nextInt(10);
        long delay = shape == 0 ? 0 : shape < 7 ? random.nextLong(1_000, SOON_MAX_NANOS) : random.nextLong(FAR_MIN_NANOS, FAR_MAX_NANOS);
        TimerTask timer = schedule(delay, null, random, depth);
        if (timer == null) {
            return;
        }
        int cancel = random.nextInt(100);
        if (cancel < 5) {
            timer.cancel();
        } else if (cancel < 35) {
            later(timer::cancel, random.nextLong(delay + delay / 5 + 1), random);
        }
    }

    /** A timer that runs {@code action} (or, if null, something random) after {@code delayNanos}; null if scheduling threw. */
    TimerTask schedule(long delayNanos, Runnable action, SplittableRandom random, int depth) {
        Ledger.Source source = source();
        TimerTask timer = new TimerTask(this, random.split(), depth, System.nanoTime() + delayNanos, action);
        try {
            timer.future = scheduler.schedule(timer, delayNanos);
        } catch (Throwable e) {
            timer.abandoned();
            ledger.violation(Ledger.Violation.OPERATION_FAILED, "schedule(" + delayNanos + " ns) from " + source.label + ": " + e);
            return null;
        }
        ledger.timerScheduled(source);
        return timer;
    }

    /**
     * Runs {@code action} after about {@code delayNanos} from somewhere else: a timer of the
     * scheduler (on a carrier), a platform thread, or a virtual thread that sleeps first.
     */
    void later(Runnable action, long delayNanos, SplittableRandom random) {
        int via = random.nextInt(100);
        if (via < 45 && schedule(delayNanos, action, random, 0) != null) {
            return;
        }
        if (via < 70 && startVirtual(new Sleeper(this, delayNanos, action), random)) {
            return;
        }
        platformLater.schedule(() -> {
            try {
                action.run();
            } catch (Throwable e) {
                ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, "an action from a platform thread: " + e);
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
    }

    // ---------------------------------------------------------------- virtual threads

    /**
     * A virtual thread of a random kind: a sleeper, a parker (unparked early by another thread, or
     * not), a waiter (notified, or not), or, unless {@code fromVirtual}, a submitter. False if too
     * many live or its start threw.
     */
    boolean startRandomVirtual(SplittableRandom random, boolean fromVirtual) {
        int kind = random.nextInt(fromVirtual ? 80 : 100);
        if (kind < 25) {
            long nanos = random.nextInt(10) < 7 ? random.nextLong(SOON_MAX_NANOS * 2) : random.nextLong(FAR_MIN_NANOS, FAR_MAX_NANOS);
            return startVirtual(new Sleeper(this, nanos, null), random);
        } else if (kind < 60) {
            long nanos = random.nextInt(10) < 6 ? random.nextLong(100_000, SOON_MAX_NANOS * 2) : random.nextLong(FAR_MIN_NANOS, FAR_MAX_NANOS);
            Parker parker = new Parker(this, nanos);
            if (!startVirtual(parker, random)) {
                return false;
            }
            if (random.nextInt(10) < 6) {
                later(parker::unpark, random.nextLong(nanos + nanos / 3), random);
            }
            return true;
        } else if (kind < 80) {
            long millis = random.nextInt(10) < 7 ? random.nextLong(1, 10) : random.nextLong(50, 1_000);
            Waiter waiter = new Waiter(this, millis);
            if (!startVirtual(waiter, random)) {
                return false;
            }
            if (random.nextBoolean()) {
                later(waiter::notifyWaiter, random.nextLong(Duration.ofMillis(millis + millis / 3).toNanos()), random);
            }
            return true;
        } else {
            return startVirtual(new Submitter(this, random.split()), random);
        }
    }

    /** A virtual thread computing for 20 to 200 ms (many time slices: it must be preempted at its polls), if fewer than 3 do now. */
    void startVirtualHog(SplittableRandom random) {
        if (virtualHogs.tryAcquire()) {
            startVirtual(new VirtualHog(this, random.nextLong(Duration.ofMillis(20).toNanos(), Duration.ofMillis(200).toNanos())), random);
        }
    }

    /**
     * Starts {@code work} on a new virtual thread of the soak's scheduler: from a virtual thread,
     * half the time with {@code Thread.ofVirtual()}, which inherits its creator's scheduler (a
     * JDK rule); else with the scheduler's own builder. False, with the work taken off the books,
     * if too many virtual threads live or the start threw.
     */
    boolean startVirtual(VirtualWork work, SplittableRandom random) {
        if (!liveVirtualThreads.tryAcquire()) {
            work.abandoned();
            return false;
        }
        try {
            Thread thread = Thread.currentThread().isVirtual() && random.nextBoolean()
                    ? Thread.ofVirtual().unstarted(work) : virtualThreads.newThread(work);
            work.thread = thread;
            thread.start();
            return true;
        } catch (Throwable e) {
            liveVirtualThreads.release();
            work.abandoned();
            ledger.violation(Ledger.Violation.OPERATION_FAILED, "starting a virtual thread from " + source().label + ": " + e);
            return false;
        }
    }

    /**
     * A blocked carrier's release did not come within its bound: a violation, and for the first
     * one the {@link Evidence} of that moment (where the release is stuck) on {@code err}.
     */
    void releaseLate(String detail) {
        ledger.violation(Ledger.Violation.RELEASE_LATE, detail);
        if (!lateReleaseShown.getAndSet(true)) {
            err.println("soak: " + detail + "; the evidence at this moment follows\n" + Evidence.of(scheduler));
        }
    }

    /** Busy-waits, holding the carrier. */
    static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    /** A task's check that the carrier it runs on was not left interrupted by the one before; clears it to report each once. */
    void checkCarrierNotInterrupted(Once task) {
        if (Thread.interrupted()) {
            ledger.violation(Ledger.Violation.INTERRUPT_LEAKED, task + " on " + Thread.currentThread().getName());
        }
    }

    /** Interrupts the current carrier and leaves it so: the scheduler must clear it before the next task. */
    void interruptCarrier() {
        ledger.carriersInterrupted.increment();
        Thread.currentThread().interrupt();
    }

    /** Throws, on purpose, what the scheduler must hand its uncaught-exception handler once. */
    void throwInjected(Once thrower, SplittableRandom random) {
        ledger.thrownByTasks.increment();
        if (random.nextInt(4) == 0) {
            throw new InjectedFailure.TaskError(thrower);
        }
        throw new InjectedFailure.TaskException(thrower);
    }

    // ---------------------------------------------------------------- plain work

    /** A plain task, run on a carrier; does one random thing. */
    static final class PlainTask extends Once {
        private final Work work;
        private final SplittableRandom random;
        private final int depth;

        PlainTask(Work work, SplittableRandom random, int depth) {
            super(work.ledger, Ledger.Kind.TASK);
            this.work = work;
            this.random = random;
            this.depth = depth;
        }

        @Override
        void body() {
            work.checkCarrierNotInterrupted(this);
            int action = random.nextInt(100);
            if (action < 25) {
                return;
            } else if (action < 45) {
                spin(random.nextLong(1_000, 50_000));
            } else if (action < 60) {
                if (depth > 0) {
                    for (int i = random.nextInt(1, 3); i > 0; i--) {
                        work.submitTask(random, depth - 1);
                    }
                }
            } else if (action < 68) {
                work.scheduleRandomTimer(random, depth - 1);
            } else if (action < 72) {
                work.startRandomVirtual(random, false);
            } else if (action < 77) {
                work.throwInjected(this, random);
            } else if (action < 81) {
                work.interruptCarrier();
            } else if (action < 83) {
                work.submitBlockingTask(random);
            } else if (action < 84) {
                work.submitHogTask(random);
            }
        }
    }

    /** A plain task that blocks its carrier: sysmon must hand its P to another carrier. */
    static final class BlockingTask extends Once {
        private final Work work;
        private final SplittableRandom random;

        BlockingTask(Work work, SplittableRandom random) {
            super(work.ledger, Ledger.Kind.BLOCKING_TASK);
            this.work = work;
            this.random = random;
        }

        @Override
        void body() {
            try {
                work.checkCarrierNotInterrupted(this);
                if (random.nextBoolean()) {
                    LockSupport.parkNanos(random.nextLong(1_000_000, 20_000_000));
                    return;
                }
                // Released from elsewhere: often a timer of this very P, which another carrier
                // must run while this one is blocked.
                CountDownLatch released = new CountDownLatch(1);
                work.later(released::countDown, random.nextLong(1_000_000, 50_000_000), random);
                if (!released.await(RELEASE_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                    work.releaseLate(this + " waited " + RELEASE_BOUND + " on " + Thread.currentThread().getName());
                }
            } catch (InterruptedException e) {
                work.ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, this + " was interrupted while blocked");
            } finally {
                work.blockedCarriers.release();
            }
        }

        @Override
        void abandoned() {
            super.abandoned();
            work.blockedCarriers.release();
        }
    }

    /** A plain task that computes for many time slices. */
    static final class HogTask extends Once {
        private final Work work;
        private final long nanos;

        HogTask(Work work, long nanos) {
            super(work.ledger, Ledger.Kind.HOG_TASK);
            this.work = work;
            this.nanos = nanos;
        }

        @Override
        void body() {
            try {
                work.checkCarrierNotInterrupted(this);
                CpuHog.compute(nanos);
            } finally {
                work.hogTasks.release();
            }
        }

        @Override
        void abandoned() {
            super.abandoned();
            work.hogTasks.release();
        }
    }
}
