package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A P's timers (Go's per-P timer heap, {@code p.timers}): a binary min-heap on
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
 * <h2>Cancelled timers</h2>
 * A cancel ({@link Timer}) leaves the timer in the heap and adds one to {@link #cancelled}. The
 * lock holder drops cancelled timers it finds at the top, and compacts the whole heap when more
 * than a quarter of it is cancelled, checked at every add and every look for due timers: the heap
 * never holds more than about 4/3 of its live timers plus what was cancelled since the last look,
 * so memory returns to its baseline however many timeouts are cancelled.
 *
 * <h2>Failure</h2>
 * Nothing here runs foreign code under the lock; an {@code OutOfMemoryError} growing the array
 * leaves the heap as it was, and the caller's add fails.
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

    final ReentrantLock lock = new ReentrantLock();
    private Timer[] heap = new Timer[16];
    /** Timers in the heap, cancelled ones included. Written under the lock; volatile for the fast path. */
    private volatile int count;
    /** The earliest {@code when} in the heap; meaningful only while {@code count > 0}. */
    private volatile long nextWhen;
    /** Cancelled timers still in the heap (approximately: a cancel races with its removal). */
    @SuppressWarnings("unused") // accessed through CANCELLED
    private volatile int cancelledCount;
    /** Timers run from this heap; for snapshots. Written under the lock. */
    private volatile long fired;

    /**
     * Any thread. Adds a timer that runs {@code task} at {@code when}; returns it. Whether it is
     * now the heap's earliest can be read from {@link #isEarliest}.
     */
    Timer add(Runnable task, long when) {
        Timer timer = new Timer(this, task, when);
        lock.lock();
        try {
            compactIfMostlyCancelled();
            int n = count;
            if (n == heap.length) {
                heap = Arrays.copyOf(heap, n * 2);
            }
            heap[n] = timer;
            siftUp(n);
            count = n + 1;
            nextWhen = heap[0].when;
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
            while (taken < max && count > 0 && heap[0].when - now <= 0) {
                Timer timer = removeTop();
                if (timer.isCancelled()) {
                    CANCELLED.getAndAdd(this, -1);
                } else {
                    into[taken++] = timer;
                }
            }
            fired = fired + taken;
            return taken;
        } finally {
            lock.unlock();
        }
    }

    /** A timer was cancelled (from {@link Timer#done()}). */
    void cancelled() {
        CANCELLED.getAndAdd(this, 1);
    }

    /** Any thread: timers waiting to run, cancelled ones not counted (approximate under races). */
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
            if (!timer.isCancelled()) {
                heap[kept++] = timer;
            }
        }
        Arrays.fill(heap, kept, n, null);
        CANCELLED.getAndAdd(this, -(n - kept));
        for (int i = kept / 2 - 1; i >= 0; i--) { // Floyd's heap construction
            siftDown(i, kept);
        }
        if (heap.length > 64 && kept < heap.length / 4) {
            heap = Arrays.copyOf(heap, Math.max(16, heap.length / 2)); // give memory back after a burst
        }
        count = kept;
        if (kept > 0) {
            nextWhen = heap[0].when;
        }
    }

    /** Under the lock, count > 0. */
    private Timer removeTop() {
        int n = count - 1;
        Timer top = heap[0];
        Timer last = heap[n];
        heap[n] = null;
        if (n > 0) {
            heap[0] = last;
            siftDown(0, n);
            nextWhen = heap[0].when;
        }
        count = n;
        return top;
    }

    private void siftUp(int i) {
        Timer timer = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Timer p = heap[parent];
            if (p.when - timer.when <= 0) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = timer;
    }

    private void siftDown(int i, int n) {
        Timer timer = heap[i];
        while (true) {
            int child = 2 * i + 1;
            if (child >= n) {
                break;
            }
            if (child + 1 < n && heap[child + 1].when - heap[child].when < 0) {
                child++;
            }
            if (timer.when - heap[child].when <= 0) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = timer;
    }
}
