package io.loomgmp.soak;

import io.loomgmp.dispatcher.Placement;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The soak's books: every unit of work is counted when it is made ({@link #made}) and settled
 * exactly once ({@link #settled}: it ran, ended, or was cancelled), so at rest, made equals settled
 * for every {@link Kind} or work was lost; work that runs twice, a timer that fires early, a
 * cancelled timer that runs, and the rest of the {@link Violation}s are recorded as they happen.
 * Memory stays flat however long the soak runs: counters, not a record per task (a task knows
 * whether it ran, see {@link Once}), and the details of the first {@value #DETAILS_KEPT}
 * violations of each kind.
 *
 * <p>Any thread may call any method; every counter is a {@link LongAdder} or an atomic, so the
 * figures read while work runs are each exact at some moment but not all at one (as a scheduler
 * snapshot's are); read at rest, they are exact.
 */
final class Ledger {
    /** Violation details kept for the summary, for each kind of violation; the counts cover every one. */
    static final int DETAILS_KEPT = 5;

    /** What a unit of work is. */
    enum Kind {
        TASK("plain tasks"),
        BLOCKING_TASK("blocking tasks (pin their carrier)"),
        HOG_TASK("CPU-hog tasks"),
        TIMER("timers"),
        SLEEPER("virtual threads: sleep"),
        PARKER("virtual threads: timed park"),
        WAITER("virtual threads: timed wait"),
        VIRTUAL_HOG("virtual threads: CPU hog"),
        PINNED("virtual threads: pinned in <clinit>"),
        SUBMITTER("virtual threads: submitting");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        boolean isVirtualThread() {
            return ordinal() >= SLEEPER.ordinal();
        }
    }

    /** Where a submission or a timer comes from. */
    enum Source {
        PLATFORM("platform threads"), CARRIER("carriers"), VIRTUAL("virtual threads");

        final String label;

        Source(String label) {
            this.label = label;
        }
    }

    /** A broken promise, recorded when it is seen. */
    enum Violation {
        RAN_TWICE("work ran more than once"),
        TIMER_EARLY("a timer fired before it was due"),
        CANCELLED_TIMER_RAN("a timer ran after it was cancelled"),
        PARK_EARLY("a timed park returned before its time with no unpark"),
        SLEEP_EARLY("a sleep returned before its time"),
        INTERRUPT_LEAKED("a task started on a carrier left interrupted"),
        REPORTED_TWICE("what a task threw reached the handler more than once"),
        UNEXPECTED_FAILURE("work or the handler met a failure nobody injected"),
        OPERATION_FAILED("a scheduler operation threw"),
        RELEASE_LATE("a blocked carrier waited past its bound for its release"),
        JFR("a JFR recording failed or held no loom-gmp events");

        final String label;

        Violation(String label) {
            this.label = label;
        }
    }

    private final Map<Kind, LongAdder> made = counters(Kind.class);
    private final Map<Kind, LongAdder> settled = counters(Kind.class);
    private final Map<Violation, LongAdder> violations = counters(Violation.class);
    private final ConcurrentLinkedQueue<String> details = new ConcurrentLinkedQueue<>();
    private final Map<Violation, AtomicInteger> detailsTaken = new EnumMap<>(Violation.class);
    private final Map<Source, Map<Placement, LongAdder>> submissions = new EnumMap<>(Source.class);
    private final Map<Source, LongAdder> timersBySource = counters(Source.class);

    final LongAdder timersFired = new LongAdder();
    final LongAdder timersCancelled = new LongAdder();
    /** Cancels that returned true while the timer's task had already begun (allowed, as for FutureTask). */
    final LongAdder cancelsRacingTheRun = new LongAdder();
    /** Cancels that came after the timer fired (returned false). */
    final LongAdder cancelsTooLate = new LongAdder();
    private final AtomicLong maxTimerLatenessNanos = new AtomicLong();
    private final LongAdder timerLatenessNanos = new LongAdder();
    /** Timers fired more than 10 ms, 100 ms and 1 s late. */
    private final LongAdder[] lateTimers = {new LongAdder(), new LongAdder(), new LongAdder()};
    /** What was seen when the latest timer so far fired, if over 100 ms late; for the summary. */
    private volatile String latestTimer;
    final LongAdder parksUnparked = new LongAdder();
    final LongAdder parksTimedOut = new LongAdder();
    final LongAdder waitsNotified = new LongAdder();
    final LongAdder pinEpisodes = new LongAdder();
    /** Exceptions and errors that tasks threw on purpose, and how many of them reached the handler. */
    final LongAdder thrownByTasks = new LongAdder();
    final LongAdder thrownReachedHandler = new LongAdder();
    /** Thrown by timers whose cancel raced their run: FutureTask drops these (see {@link TimerTask}). */
    final LongAdder thrownByRacedTimers = new LongAdder();
    final LongAdder carriersInterrupted = new LongAdder();
    final LongAdder grows = new LongAdder();
    final LongAdder shrinks = new LongAdder();
    /** Resizes that have returned, up or down: a timer notes it when scheduled, to tell whether one came between. */
    final AtomicLong resizes = new AtomicLong();
    final LongAdder alwaysOnRecordings = new LongAdder();
    final LongAdder traceRecordings = new LongAdder();

    Ledger() {
        for (Source source : Source.values()) {
            submissions.put(source, counters(Placement.class));
        }
        for (Violation violation : Violation.values()) {
            detailsTaken.put(violation, new AtomicInteger());
        }
    }

    private static <E extends Enum<E>> Map<E, LongAdder> counters(Class<E> type) {
        Map<E, LongAdder> map = new EnumMap<>(type);
        for (E e : type.getEnumConstants()) {
            map.put(e, new LongAdder());
        }
        return map;
    }

    /** A unit of work of {@code kind} was made; counted before it is queued or started. */
    void made(Kind kind) {
        made.get(kind).increment();
    }

    /** A unit of work ran to its end (or was cancelled); exactly once per {@link #made}. */
    void settled(Kind kind) {
        settled.get(kind).increment();
    }

    /**
     * A unit of work made but never queued (its submission threw, which is reported on its own):
     * taken off the books, so that it does not count as lost.
     */
    void unmade(Kind kind) {
        made.get(kind).decrement();
    }

    long madeCount(Kind kind) {
        return made.get(kind).sum();
    }

    long settledCount(Kind kind) {
        return settled.get(kind).sum();
    }

    /** Made but not settled: queued, running, sleeping, or lost. Settled is read first, so this is never below the truth. */
    long outstanding(Kind kind) {
        long done = settled.get(kind).sum();
        return made.get(kind).sum() - done;
    }

    long outstanding() {
        long total = 0;
        for (Kind kind : Kind.values()) {
            total += outstanding(kind);
        }
        return total;
    }

    /** Units settled over every kind: the watchdog's measure of progress. */
    long settledTotal() {
        long total = 0;
        for (LongAdder adder : settled.values()) {
            total += adder.sum();
        }
        return total;
    }

    void submitted(Source source, Placement placement) {
        submissions.get(source).get(placement).increment();
    }

    long submissions(Source source, Placement placement) {
        return submissions.get(source).get(placement).sum();
    }

    void timerScheduled(Source source) {
        timersBySource.get(source).increment();
    }

    long timers(Source source) {
        return timersBySource.get(source).sum();
    }

    /**
     * A timer ran {@code latenessNanos} after it was due (never negative: an early one is a
     * violation). {@code context} describes where, if it is the latest yet and over 100 ms late.
     */
    void timerFired(long latenessNanos, Supplier<String> context) {
        timersFired.increment();
        timerLatenessNanos.add(latenessNanos);
        for (int i = 0, limit = 10_000_000; i < lateTimers.length && latenessNanos > limit; i++, limit *= 10) {
            lateTimers[i].increment();
        }
        long max = maxTimerLatenessNanos.get();
        if (latenessNanos > max && maxTimerLatenessNanos.compareAndSet(max, latenessNanos) && latenessNanos > 100_000_000) {
            latestTimer = String.format(Locale.ROOT, "%.1f ms late: ", latenessNanos / 1e6) + context.get();
        }
    }

    /** Timers more than 10 ms, 100 ms and 1 s late. */
    long[] lateTimers() {
        return new long[] {lateTimers[0].sum(), lateTimers[1].sum(), lateTimers[2].sum()};
    }

    /** Where the latest timer fired, if it was over 100 ms late; else null. */
    String latestTimer() {
        return latestTimer;
    }

    long maxTimerLatenessNanos() {
        return maxTimerLatenessNanos.get();
    }

    long meanTimerLatenessNanos() {
        long fired = timersFired.sum();
        return fired == 0 ? 0 : timerLatenessNanos.sum() / fired;
    }

    /** Records a broken promise; the first {@value #DETAILS_KEPT} of each kind keep their details. */
    void violation(Violation violation, String detail) {
        violations.get(violation).increment();
        if (detailsTaken.get(violation).getAndIncrement() < DETAILS_KEPT) {
            details.add(violation.label + ": " + detail);
        }
    }

    long violations(Violation violation) {
        return violations.get(violation).sum();
    }

    long violations() {
        long total = 0;
        for (LongAdder adder : violations.values()) {
            total += adder.sum();
        }
        return total;
    }

    /** The details kept, in the order they came. */
    List<String> violationDetails() {
        return new ArrayList<>(details);
    }
}
