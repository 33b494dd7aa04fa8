package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A P's local run queue: a bounded single-producer, multi-consumer ring of {@value #CAPACITY}
 * slots plus the {@code runnext} slot (Go's {@code p.runq} and {@code p.runnext}).
 *
 * <h2>Who may call what</h2>
 * <ul>
 *   <li><b>owner</b> — the carrier that currently holds this queue's P: {@link #pushOrOverflow},
 *       {@link #pushNext}, {@link #pollNext}, {@link #poll}, and {@link #stealHalfFrom} on its own
 *       queue (it is the owner of the queue it steals <em>into</em>).</li>
 *   <li><b>thief</b> — any other carrier: only through {@code thief.stealHalfFrom(victim)}, which
 *       removes from the victim's head and its {@code runnext}.</li>
 *   <li><b>any</b> thread: {@link #size}, {@link #isEmpty}, {@link #hasNext} (racy, for heuristics
 *       and snapshots).</li>
 * </ul>
 * Ownership moves between carriers only under the scheduler lock (acquire/release of a P), which
 * orders one owner's plain accesses before the next owner's.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>{@code head} and {@code tail} are free-running {@code int} counters (they wrap; only
 *       differences are used). Slots {@code [head, tail)} hold queued tasks; {@code 0 <= tail - head
 *       <= CAPACITY}.</li>
 *   <li>Only the owner writes {@code tail} and the slots in {@code [tail, head + CAPACITY)}. Anyone
 *       advances {@code head}, only by CAS, and only after having read the slots it takes.</li>
 *   <li>{@code runnext} is changed only by CAS: owner put/poll, thief steal.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * The owner's slot write happens-before its {@code setRelease(tail)}; a thief reads {@code tail}
 * (a volatile read: acquire) and only then reads the slots below it, so it sees the tasks. A
 * consumer reads slots <em>before</em> its CAS of {@code head} (a volatile write); the owner reads
 * {@code head} (volatile) before reusing a slot, so a slot is never overwritten while a consumer
 * whose CAS succeeded could still be reading it. A consumer whose CAS fails may have read a slot
 * mid-reuse; it discards what it read. Slot accesses themselves are therefore plain.
 *
 * <p>{@code head}, {@code tail} and {@code runnext} are read directly, as volatile fields, not
 * through a VarHandle: acquire is all those reads need, and on x86 and AArch64 a volatile read
 * is the same instruction as an acquire read. A VarHandle call is that instruction too once C2
 * has compiled its caller, but before that (interpreted, or compiled by C1 with profiling, as
 * in a fresh JVM's first second) it runs a dozen checks: its guards, casts of the receiver and
 * the value. In a fan-out compiled only that far, they took 40 % of the CPU. Writes go through
 * the VarHandles ({@code setRelease} and CAS), where a volatile write would add a full fence.
 *
 * <p>Consumed slots are not cleared (a consumer cannot know whether the owner has already reused
 * the slot), so a ring keeps at most {@value #CAPACITY} finished tasks reachable until they are
 * overwritten. Head and tail are not padded apart; Go does not pad them either.
 */
final class RunQueue {
    /** Slots in the ring; Go's value. A power of two so that {@code index & MASK} is the slot. */
    static final int CAPACITY = 256;
    private static final int MASK = CAPACITY - 1;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle RUNNEXT;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(RunQueue.class, "head", int.class);
            TAIL = lookup.findVarHandle(RunQueue.class, "tail", int.class);
            RUNNEXT = lookup.findVarHandle(RunQueue.class, "runnext", Runnable.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The tasks, in an {@code Object[]}: a store into a {@code Runnable[]} checks the task's class,
     * and the JIT compiles that check for the one class it has seen so far, to recompile the
     * method and every caller it is inlined in when a second one comes (a latency sample's
     * wrapper, a plain {@code Runnable}). Every slot holds a {@code Runnable}.
     */
    private final Object[] slots = new Object[CAPACITY];
    /** The owner's buffer for a full ring's overflow: half the ring plus the new task. Owner only. */
    private final Object[] overflow = new Object[CAPACITY / 2 + 1];
    // read directly (volatile), written through HEAD
    private volatile int head;
    // read directly (volatile), written through TAIL
    private volatile int tail;
    // read directly (volatile), written through RUNNEXT
    private volatile Runnable runnext;

    /**
     * Owner only. Appends {@code task} at the tail. When the ring is full, moves the older half of
     * the ring plus {@code task} out in one batch and returns it (oldest first, filling the array):
     * the caller puts that batch on the global queue ({@link GlobalQueue#putOverflow}, which
     * clears it). Returns {@code null} when the task was queued locally. Allocates nothing: the
     * batch is this queue's own buffer, so a full ring never fails for want of memory.
     */
    Object[] pushOrOverflow(Runnable task) {
        while (true) {
            // Volatile (at least acquire): pairs with consumers' CAS of head, so their reads of
            // the slots we are about to reuse are finished before our write.
            int h = head;
            int t = tail; // only the owner writes tail
            if (t - h < CAPACITY) {
                slots[t & MASK] = task;
                TAIL.setRelease(this, t + 1); // publishes the slot write to thieves
                return null;
            }
            Object[] batch = takeHalfForOverflow(h, t, task);
            if (batch != null) {
                return batch;
            }
            // A thief moved head: there may be room now.
        }
    }

    /**
     * Owner only (Go's runqputslow), with the ring full ({@code t - h == CAPACITY}). Returns null
     * when a concurrent consumer moved head first.
     */
    private Object[] takeHalfForOverflow(int h, int t, Runnable task) {
        int n = (t - h) / 2; // CAPACITY / 2: the buffer's length less one
        Object[] batch = overflow;
        for (int i = 0; i < n; i++) {
            batch[i] = slots[(h + i) & MASK];
        }
        // Volatile CAS: claims the slots; a failure means a thief took some of them (the copies
        // are overwritten at the next try).
        if (!HEAD.compareAndSet(this, h, h + n)) {
            return null;
        }
        batch[n] = task;
        return batch;
    }

    /**
     * Owner only. Puts {@code task} in {@code runnext} and returns the task it displaced (which
     * the caller must queue at the tail with {@link #pushOrOverflow}), or {@code null}.
     */
    Runnable pushNext(Runnable task) {
        while (true) {
            Runnable old = runnext;
            // Volatile CAS: a thief may have taken old in the meantime; publish task to thieves.
            if (RUNNEXT.compareAndSet(this, old, task)) {
                return old;
            }
        }
    }

    /** Owner only. Takes the task in {@code runnext}, or returns {@code null}. */
    Runnable pollNext() {
        Runnable next = runnext;
        // Only thieves race with us here; if one won, runnext is now empty (only the owner fills it).
        if (next != null && RUNNEXT.compareAndSet(this, next, null)) {
            return next;
        }
        return null;
    }

    /** Owner only: the ring index the next push writes to (indices grow by one per task, wrapping as ints). */
    int tailIndex() {
        return tail; // only the owner writes it
    }

    /**
     * Any thread: whether every task pushed before ring index {@code index} has left the ring
     * (taken by the owner or a thief). Acquire read of head, which only moves forward; the answer
     * may be stale by the time it is used, never early. Index arithmetic wraps: an index more than
     * 2<sup>31</sup> tasks old reads as not yet passed.
     */
    boolean passed(int index) {
        return head - index >= 0;
    }

    /** Owner only. Takes the oldest task of the ring (not {@code runnext}), or returns {@code null}. */
    Runnable poll() {
        while (true) {
            int h = head; // volatile: sees head moves by thieves
            int t = tail; // only the owner writes it
            if (t == h) {
                return null;
            }
            Runnable task = (Runnable) slots[h & MASK];
            // Volatile CAS: races with thieves taking the same slot.
            if (HEAD.compareAndSet(this, h, h + 1)) {
                return task;
            }
        }
    }

    /**
     * Called by the owner of {@code this} queue (the thief), which must be empty. Takes half,
     * rounded up, of {@code victim}'s ring into this ring and returns one of the stolen tasks to
     * run now; the rest are queued here. When the victim's ring is empty and {@code stealRunnext}
     * is set, takes the victim's {@code runnext} instead, after waiting {@code runnextGraceNanos}
     * so that a running victim can take it itself (Go's usleep(3): a hand-off is about to run).
     * Returns {@code null} when nothing was taken.
     */
    Runnable stealHalfFrom(RunQueue victim, boolean stealRunnext, long runnextGraceNanos) {
        int t = tail; // we own this queue: only we write it
        int n = victim.grabHalfInto(slots, t, stealRunnext, runnextGraceNanos);
        if (n == 0) {
            return null;
        }
        n--;
        Runnable task = (Runnable) slots[(t + n) & MASK];
        if (n != 0) {
            // Release: the stolen tasks become visible to our own thieves.
            TAIL.setRelease(this, t + n);
        }
        return task;
    }

    /**
     * Thief side of a steal (Go's runqgrab): copies half (rounded up) of this ring into
     * {@code into} starting at {@code intoTail} and claims it with a CAS. Returns the count.
     */
    private int grabHalfInto(Object[] into, int intoTail, boolean stealRunnext, long graceNanos) {
        while (true) {
            int h = head; // volatile: pairs with other consumers' CAS
            int t = tail; // volatile: pairs with the owner's setRelease
            int n = t - h;
            n = n - n / 2;
            if (n == 0) {
                return stealRunnext ? grabRunnextInto(into, intoTail, graceNanos) : 0;
            }
            if (n > CAPACITY / 2) {
                continue; // h and t were read at different moments and are inconsistent: retry
            }
            for (int i = 0; i < n; i++) {
                into[(intoTail + i) & MASK] = slots[(h + i) & MASK];
            }
            // Volatile CAS: claims [h, h+n); on failure the copies are garbage and are overwritten.
            if (HEAD.compareAndSet(this, h, h + n)) {
                return n;
            }
        }
    }

    private int grabRunnextInto(Object[] into, int intoTail, long graceNanos) {
        Runnable next = runnext;
        if (next == null) {
            return 0;
        }
        if (graceNanos > 0) {
            spinFor(graceNanos);
        }
        // Volatile CAS: if the owner polled or replaced it meanwhile, we take nothing.
        if (!RUNNEXT.compareAndSet(this, next, null)) {
            return 0;
        }
        into[intoTail & MASK] = next;
        return 1;
    }

    private static void spinFor(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
    }

    /** Any thread. Tasks in the ring, not counting {@code runnext}; approximate under races. */
    int size() {
        while (true) {
            int h = head;
            int t = tail;
            if (h == head) { // consistent pair
                int n = t - h;
                return Math.max(0, Math.min(n, CAPACITY));
            }
        }
    }

    /** Any thread. Whether {@code runnext} holds a task. */
    boolean hasNext() {
        return runnext != null;
    }

    /**
     * Any thread (Go's runqempty). True only if the ring and {@code runnext} were seen empty at
     * one moment: re-reads tail so that a task moving from {@code runnext} to the ring while we
     * look is not missed.
     */
    boolean isEmpty() {
        while (true) {
            int h = head;
            int t = tail;
            Object next = runnext;
            if (t == tail) {
                return h == t && next == null;
            }
        }
    }
}
