package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A P's timers (Go's per-P timer heap, {@code p.timers}): a 4-ary min-heap on
 * {@link Timer#when}, run by the scheduling loop of whichever carrier holds the P, or by another P
 * that steals them when they are due and this P's carrier is busy, blocked or parked.
 *
 * <h2>Who may call what</h2>
 * Every operation that reads or changes the heap takes its {@link #lock}: adding (any thread; the
 * Loom bridge adds a virtual thread's timeout from its carrier as the thread unmounts), taking the
 * due timers (a carrier holding any P), and compaction. The lock is held only for heap operations,
 * never while a timer's task runs. {@link #nextWhen} and {@link #count} are volatile copies for
 * the lock-free checks on the scheduling loop's fast path and sysmon's looks: a carrier reads
 * {@code count} (zero nearly always when no virtual thread sleeps) and calls
 * {@code System.nanoTime()} only if it is not.
 *
 * <h2>The timer mask</h2>
 * A heap of a scheduler's P keeps its P's bit in the scheduler's timer mask ({@link ProcMask},
 * Go's {@code timerpMask}) set while it holds any timer, cancelled ones included: set under the
 * lock when an add makes it non-empty, after {@link #count} and {@link #nextWhen} are written,
 * and cleared under the lock when it becomes empty. So at each release of the lock the bit is set
 * iff {@code count > 0}, and the lookers at every P's timers ({@code Timers.delay},
 * {@code anyDue}, {@code runOthersDue}) walk the Ps whose bit is set, not every P. A looker that
 * sees the bit set sees the count and the earliest deadline written before it; one that reads it
 * clear just before an add's set read it before that set in the synchronization order (both
 * volatile), so the adder's later volatile reads (of the timer sleeper and its deadline,
 * {@code Parking.wakeSleeperFor}; of the idle and spinning counts, {@code Idle.wakeP}) come after
 * the looker's earlier writes (the sleeper's deadline, a spinner's decrement): the pairs of
 * {@code Parking} and {@code Idle} hold as they did when every heap was read
 * (jcstress: {@code TimerAddVsSleeperPublish}).
 *
 * <h2>Cancelled timers</h2>
 * A cancel ({@link Timer}) leaves the timer in the heap and adds one to the heap's count of
 * cancelled ones. The lock holder drops cancelled timers it finds at the top, and compacts the
 * whole heap when more than a quarter of it is cancelled, checked at every add and every look for
 * due timers: the heap never holds more than about 4/3 of its live timers plus what was cancelled
 * since the last look, so memory returns to its baseline however many timeouts are cancelled.
 *
 * <h2>Layout</h2>
 * The deadlines sit in a {@code long[]} beside the timers, and each node has four children, as in
 * Go's timer heap: sifting compares deadlines that share cache lines instead of following a
 * pointer to each timer, and a heap of 10,000 sleeping threads is 7 levels deep instead of 14.
 *
 * <h2>Failure</h2>
 * Nothing here runs foreign code under the lock; an {@code OutOfMemoryError} growing the array
 * leaves the heap as it was, and the caller's add fails: for a virtual thread's timeout, the
 * error leaves its unmount and reaches the scheduler's handler, and the thread is not woken by
 * that timeout, as when the JDK's own timer queue fails to grow.
 */
final class TimerHeap {
    private static final VarHandle CANCELLED;

    static {
        try {
            CANCELLED = MethodHandles.lookup().findVarHandle(TimerHeap.class, "cancelledCount", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Children per node. */
    private static final int ARITY = 4;

    final ReentrantLock lock = new CarrierSafeLock();
    /** Told when a timer of this heap is cancelled (a closed scheduler may be waiting for it); null in tests of the heap alone. */
    private final Shutdown shutdown;
    /** Handed what a timer's task throws; null in tests of the heap alone. */
    private final Failures failures;
    /** The scheduler's timer mask, where this heap keeps its P's bit; null in tests of the heap alone. */
    private final ProcMask withTimers;
    /** Its P's id: its bit in {@link #withTimers}. */
    private final int id;
    private Timer[] heap = new Timer[16];
    /** {@code whens[i] == heap[i].when}, kept beside the timers for the sift loops. */
    private long[] whens = new long[16];
    /** Timers in the heap, cancelled ones included. Written under the lock; volatile for the fast path. */
    private volatile int count;
    /** The earliest {@code when} in the heap; meaningful only while {@code count > 0}. */
    private volatile long nextWhen;
    /** Cancelled timers still in the heap: exact once a cancel's or a removal's CAS lands (see {@link Timer}). */
    @SuppressWarnings("unused") // accessed through CANCELLED
    private volatile int cancelledCount;
    /** Timers run from this heap; for snapshots. Written under the lock. */
    private volatile long fired;
    /**
     * The P is retired ({@link ProcResize}): the heap takes no new timer, so that the timers it
     * holds can be moved to the remaining Ps once and for all. Under the lock.
     */
    private boolean closed;

    /** A heap whose cancellations nobody needs to hear of (tests of the heap alone). */
    TimerHeap() {
        this(null, null, null, 0);
    }

    /** P {@code id}'s heap, which keeps that P's bit in {@code withTimers} (see the class comment). */
    TimerHeap(Shutdown shutdown, Failures failures, ProcMask withTimers, int id) {
        this.shutdown = shutdown;
        this.failures = failures;
        this.withTimers = withTimers;
        this.id = id;
    }

    /** Under the lock, just after {@link #count} changed from {@code before} to {@code after}: the P's bit follows. */
    private void countChanged(int before, int after) {
        if (withTimers != null && (before == 0) != (after == 0)) {
            if (after == 0) {
                withTimers.clear(id);
            } else {
                withTimers.set(id); // after count and nextWhen: a looker that sees the bit sees them
            }
        }
    }

    /**
     * Any thread. Adds a timer that runs {@code task} at {@code when}; returns it, or {@code null}
     * if the heap is closed (its P was retired: the caller adds to another P's heap). Whether it
     * is now the heap's earliest can be read from {@link #isEarliest}.
     */
    Timer add(Runnable task, long when) {
        Timer timer = new Timer(this, task, when);
        lock.lock();
        try {
            if (closed) {
                return null;
            }
            compactIfMostlyCancelled();
            place(timer);
        } finally {
            lock.unlock();
        }
        return timer;
    }

    /** Any thread: whether {@code timer} was this heap's earliest when last looked at. */
    boolean isEarliest(Timer timer) {
        return nextWhen == timer.when;
    }

    /** Any thread, no lock: whether a timer (perhaps cancelled) is due at {@code now}. */
    boolean hasDue(long now) {
        return count > 0 && nextWhen - now <= 0;
    }

    /** Any thread, no lock: whether the heap holds any timer, perhaps a cancelled one. */
    boolean isEmpty() {
        return count == 0;
    }

    /** Any thread, no lock: the earliest {@code when}; meaningful only when not {@link #isEmpty()}. */
    long nextWhen() {
        return nextWhen;
    }

    /**
     * A carrier holding some P. Takes up to {@code max} timers due at {@code now} out of the
     * heap, dropping cancelled ones, and returns how many it put in {@code into}; the caller runs
     * them ({@link Timer#run()}, a no-op if cancelled meanwhile) after this returns.
     */
    int takeDue(long now, Timer[] into, int max) {
        lock.lock();
        try {
            compactIfMostlyCancelled();
            int taken = 0;
            while (taken < max && count > 0 && whens[0] - now <= 0) {
                Timer timer = removeTop();
                timer.takenOut();
                if (!timer.isCancelled()) {
                    into[taken++] = timer;
                }
            }
            fired = fired + taken;
            return taken;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- moving a retired P's timers

    /**
     * {@link ProcResize} only. Closes the heap to new timers ({@link #add} returns null from now
     * on), or opens it again when its P is activated again.
     */
    void setClosed(boolean closed) {
        lock.lock();
        try {
            this.closed = closed;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link ProcResize} only, on a closed heap: takes a timer out to move it to another heap
     * ({@link #addMoved}), dropping cancelled ones on the way; {@code null} once none is left.
     * The timer is in no heap until it is added there (or put back here): its place is MOVING
     * ({@link Timer#startMove}). Takes the last slot, so that the rest stays a heap. Allocates
     * nothing.
     */
    Timer takeForMove() {
        lock.lock();
        try {
            while (count > 0) {
                int n = count - 1;
                Timer timer = heap[n];
                heap[n] = null;
                count = n;
                countChanged(n + 1, n);
                if (timer.startMove()) {
                    return timer;
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Any thread: adds {@code timer}, taken from a retired P's heap with {@link #takeForMove}, as
     * it is: the caller's {@code Future} is that timer, so cancelling it reaches it here. Returns
     * false, changing nothing, if this heap is closed too. May throw an {@code OutOfMemoryError}
     * growing the heap, changing nothing: then the caller puts the timer back ({@link #putBack}).
     */
    boolean addMoved(Timer timer) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            insert(timer);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link ProcResize} only: puts back a timer that {@link #takeForMove} took from this closed
     * heap and that could not be added elsewhere. Allocates nothing: the slot it left is still
     * there (a closed heap does not shrink).
     */
    void putBack(Timer timer) {
        lock.lock();
        try {
            insert(timer);
        } finally {
            lock.unlock();
        }
    }

    /** Under the lock: {@code timer}, which is moving, lands here. */
    private void insert(Timer timer) {
        place(timer);
        timer.endMove(this);
    }

    /** Under the lock: {@code timer} joins the heap, which grows first if it is full. */
    private void place(Timer timer) {
        int n = count;
        if (n == heap.length) {
            Timer[] grownHeap = Arrays.copyOf(heap, n * 2);
            whens = Arrays.copyOf(whens, n * 2);
            heap = grownHeap;
        }
        siftUp(n, timer);
        count = n + 1;
        nextWhen = whens[0];
        countChanged(n, n + 1);
    }

    /** A timer in this heap was cancelled (+1), or a cancelled one left it (-1); from {@link Timer}. */
    void cancelled(int delta) {
        CANCELLED.getAndAdd(this, delta);
        if (delta > 0 && shutdown != null) {
            shutdown.timerCancelled(); // after the count: a closed scheduler may be waiting for this timer
        }
    }

    /**
     * The task of a timer of this heap threw {@code failure}, on the carrier that ran it (from
     * {@link Timer}): to the uncaught-exception handler, which never throws.
     */
    void taskFailed(Throwable failure) {
        if (failures != null) {
            failures.reportToHandler(failure);
        }
    }

    /**
     * Any thread: timers waiting to run, cancelled ones not counted. Two exact counts read one
     * after the other, so a cancel or an add racing with the call may be half seen.
     */
    int pending() {
        return Math.max(0, count - (int) CANCELLED.getVolatile(this));
    }

    /** Any thread: timers in the heap, cancelled ones not yet dropped included. */
    int size() {
        return count;
    }

    /** Any thread: timers run from this heap so far. */
    long fired() {
        return fired;
    }

    /** Under the lock. Drops every cancelled timer when they are more than a quarter of the heap. */
    private void compactIfMostlyCancelled() {
        int cancelled = (int) CANCELLED.getVolatile(this);
        int n = count;
        if (cancelled == 0 || cancelled * 4 <= n) {
            return;
        }
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Timer timer = heap[i];
            if (timer.isCancelled()) {
                timer.takenOut();
            } else {
                heap[kept] = timer;
                whens[kept++] = timer.when;
            }
        }
        Arrays.fill(heap, kept, n, null);
        for (int i = kept < 2 ? -1 : (kept - 2) / ARITY; i >= 0; i--) { // Floyd's heap construction
            siftDown(i, heap[i], kept);
        }
        if (!closed && heap.length > 64 && kept < heap.length / 4) { // a closed heap keeps its room: see putBack
            int length = Math.max(16, heap.length / 2); // give memory back after a burst
            Timer[] shrunkHeap = Arrays.copyOf(heap, length);
            whens = Arrays.copyOf(whens, length);
            heap = shrunkHeap;
        }
        count = kept;
        if (kept > 0) {
            nextWhen = whens[0];
        }
        countChanged(n, kept);
    }

    /** Under the lock, count > 0. */
    private Timer removeTop() {
        int n = count - 1;
        Timer top = heap[0];
        Timer last = heap[n];
        heap[n] = null;
        if (n > 0) {
            siftDown(0, last, n);
            nextWhen = whens[0];
        }
        count = n;
        countChanged(n + 1, n);
        return top;
    }

    /** Places {@code timer} at or above the free slot {@code i}. */
    private void siftUp(int i, Timer timer) {
        long when = timer.when;
        while (i > 0) {
            int parent = (i - 1) / ARITY;
            if (whens[parent] - when <= 0) {
                break;
            }
            heap[i] = heap[parent];
            whens[i] = whens[parent];
            i = parent;
        }
        heap[i] = timer;
        whens[i] = when;
    }

    /** Places {@code timer} at or below the free slot {@code i} of a heap of {@code n}. */
    private void siftDown(int i, Timer timer, int n) {
        long when = timer.when;
        while (true) {
            int first = ARITY * i + 1;
            if (first >= n) {
                break;
            }
            int child = first;
            long childWhen = whens[first];
            for (int c = first + 1, end = Math.min(first + ARITY, n); c < end; c++) {
                if (whens[c] - childWhen < 0) {
                    child = c;
                    childWhen = whens[c];
                }
            }
            if (when - childWhen <= 0) {
                break;
            }
            heap[i] = heap[child];
            whens[i] = childWhen;
            i = child;
        }
        heap[i] = timer;
        whens[i] = when;
    }
}
