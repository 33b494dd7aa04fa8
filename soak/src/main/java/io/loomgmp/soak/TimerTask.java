package io.loomgmp.soak;

import io.loomgmp.dispatcher.Placement;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.SplittableRandom;
import java.util.concurrent.Future;

/**
 * A timer's task ({@code GmpScheduler.schedule}): it knows when it was due and checks, when it
 * runs, that it is not early and was not cancelled. Its due time is taken before
 * {@code schedule} is called, so the scheduler's own is never earlier: a run before it is early
 * by the scheduler's measure too.
 *
 * <h2>Run against cancel</h2>
 * {@link #state} goes PENDING → RUNNING (the run, first thing) or PENDING → CANCELLED (the
 * canceller, once {@code Future.cancel(false)} has returned true); one CAS wins, and the winner
 * settles the timer on the books, so each timer is settled once. A cancel that returns true may
 * still meet a run: {@code FutureTask.run} checks that it is not cancelled and only then calls
 * this task, and a cancel between the two returns true without stopping it. Such a run began
 * (passed that check) before the cancel, and no run begins before the timer is due. So a run
 * after a cancel that had returned before the due time is a
 * {@link Ledger.Violation#CANCELLED_TIMER_RAN}, whichever CAS wins; a cancel that returned after
 * the due time and meets the run is the race {@code cancel(false)} allows, counted in
 * {@link Ledger#cancelsRacingTheRun}. (A run delayed past the due time and past the cancel would
 * pass unseen; most cancels come well before the due time.)
 *
 * <h2>What a raced run throws</h2>
 * A task whose cancel raced its run and that throws has its exception dropped by
 * {@code FutureTask} (the future is already cancelled), so the scheduler cannot report it: both
 * sides mark {@link #marks}, and whichever comes second counts it in
 * {@link Ledger#thrownByRacedTimers}, which the summary shows beside the exceptions that never
 * reached the handler.
 */
final class TimerTask extends Once {
    private static final int PENDING = 0;
    private static final int RUNNING = 1;
    private static final int CANCELLED = 2;
    private static final int THREW = 1;
    private static final int CANCEL_RACED = 2;
    private static final VarHandle STATE;
    private static final VarHandle MARKS;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(TimerTask.class, "state", int.class);
            MARKS = MethodHandles.lookup().findVarHandle(TimerTask.class, "marks", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Work work;
    private final SplittableRandom random;
    private final int depth;
    /** {@code System.nanoTime()} before {@code schedule} was called, plus the delay. */
    private final long due;
    /** What to do when it fires, or null: something random. */
    private final Runnable action;
    /** Set by the maker once {@code schedule} returns; read by the canceller, which the maker arranged after. */
    volatile Future<?> future;
    /** For the evidence: the resizes done when it was scheduled, and who scheduled it. */
    private final long resizesBefore;
    private final String scheduledBy;
    /** When {@code cancel(false)} returned true; written before the canceller's CAS, so a run that loses to it sees it. */
    private volatile long cancelReturnedAt;
    @SuppressWarnings("unused") // through STATE
    private volatile int state = PENDING;
    @SuppressWarnings("unused") // through MARKS
    private volatile int marks;

    TimerTask(Work work, SplittableRandom random, int depth, long due, Runnable action) {
        super(work.ledger, Ledger.Kind.TIMER);
        this.work = work;
        this.random = random;
        this.depth = depth;
        this.due = due;
        this.action = action;
        this.resizesBefore = work.ledger.resizes.get();
        this.scheduledBy = Thread.currentThread().toString();
    }

    @Override
    boolean begin() {
        long now = System.nanoTime();
        if (!STATE.compareAndSet(this, PENDING, RUNNING)) { // CANCELLED: the canceller settled it
            long cancelled = cancelReturnedAt;
            if (cancelled - due < 0) {
                ledger.violation(Ledger.Violation.CANCELLED_TIMER_RAN, "its cancel returned " + (due - cancelled) / 1_000
                        + " µs before it was due: " + whereNow(now));
            } else {
                ledger.cancelsRacingTheRun.increment();
            }
            return false;
        }
        if (now - due < 0) {
            ledger.violation(Ledger.Violation.TIMER_EARLY, "early by " + (due - now) / 1_000 + " µs: " + whereNow(now));
        } else {
            ledger.timerFired(now - due, () -> whereNow(now));
        }
        return true;
    }

    /** Where and when it ran, against where and when it was scheduled: the evidence for a late or wrong run. */
    private String whereNow(long now) {
        return this + " ran on " + Thread.currentThread().getName() + ", " + (now - due) / 1_000 + " µs after it was due; "
                + (ledger.resizes.get() - resizesBefore) + " resizes since " + scheduledBy + " scheduled it; now "
                + work.scheduler;
    }

    @Override
    void body() {
        work.checkCarrierNotInterrupted(this);
        if (action != null) {
            action.run();
            return;
        }
        int choice = random.nextInt(100);
        if (choice < 55) {
            return;
        } else if (choice < 65) {
            if (depth > 0) { // runs next on this P: the path the Loom bridge takes for a sleeper woken here
                work.submitTaskWith(random, depth - 1, Placement.RUNNEXT);
            }
        } else if (choice < 72) {
            if (depth > 0) {
                work.submitTask(random, depth - 1);
            }
        } else if (choice < 80) {
            work.interruptCarrier();
        } else if (choice < 84) {
            mark(THREW);
            work.throwInjected(this, random);
        } else if (choice < 88) {
            if (depth > 0) {
                work.scheduleRandomTimer(random, depth - 1);
            }
        } else if (choice < 92) {
            work.startRandomVirtual(random, false);
        }
    }

    /**
     * Any thread: cancels the timer, and settles it if the cancel stopped it; see the class
     * comment for the race with a run.
     */
    void cancel() {
        if (!future.cancel(false)) {
            ledger.cancelsTooLate.increment();
            return;
        }
        long returned = System.nanoTime();
        cancelReturnedAt = returned;
        if (STATE.compareAndSet(this, PENDING, CANCELLED)) {
            ledger.timersCancelled.increment();
            ledger.settled(Ledger.Kind.TIMER);
        } else if (returned - due < 0) { // RUNNING, though cancelled before it was due: the run settles it
            ledger.violation(Ledger.Violation.CANCELLED_TIMER_RAN, "it ran though its cancel returned "
                    + (due - returned) / 1_000 + " µs before it was due: " + this);
        } else {
            ledger.cancelsRacingTheRun.increment();
            mark(CANCEL_RACED);
        }
    }

    private void mark(int bit) {
        int before = (int) MARKS.getAndBitwiseOr(this, bit);
        if (before != 0 && (before & bit) == 0) {
            ledger.thrownByRacedTimers.increment(); // the second of the two marks
        }
    }
}
