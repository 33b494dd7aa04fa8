package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.FutureTask;

/**
 * One timer of a P's {@link TimerHeap}: a task to run on a carrier at {@link #when} (a
 * {@link System#nanoTime()} value). It is the {@link java.util.concurrent.Future} that
 * {@link GmpScheduler#schedule} returns, built on the JDK's {@link FutureTask}, whose state
 * machine makes "run" and "cancel" exclusive: whichever CAS wins, the other does nothing.
 *
 * <p>Cancelling (any thread: for a virtual thread, the JDK cancels its timeout when an unpark
 * beat it, the common case) is that CAS plus, while the timer is still in its heap, one more CAS
 * and an atomic add: the timer is not taken out of the heap then, but counted as cancelled there;
 * whoever next holds the heap's lock drops it, or compacts the heap once cancelled timers are more
 * than a quarter of it (Go's lazy {@code deltimer}). {@code FutureTask} drops its reference to the
 * task on cancel, so a cancelled timer does not keep a virtual thread reachable.
 *
 * <h2>The heap's count of cancelled timers stays exact</h2>
 * {@link #place} goes IN_HEAP → COUNTED (by the cancel, which then adds one to the heap's count)
 * or → OUT (by the lock holder taking the timer out, which subtracts one if it finds COUNTED).
 * Both moves are atomic, so each cancelled timer is counted once while in the heap and
 * uncounted once when it leaves, whatever the order of the cancel and the removal.
 *
 * <h2>Moving to another heap</h2>
 * When {@code setProcs} retires a P, its timers move, as they are, to the remaining Ps' heaps
 * ({@link TimerHeap#takeForMove}, {@link TimerHeap#addMoved}): the caller's {@code Future} is the
 * timer that moves, so a later cancel reaches it wherever it is. While it is between heaps its
 * place is MOVING, which a cancel cannot count; the heap it lands in publishes itself in
 * {@link #heap} (volatile), then sets IN_HEAP (CAS), then looks whether it was cancelled
 * meanwhile and counts it then (CAS IN_HEAP → COUNTED). A cancel sets the future's state
 * (volatile) before it tries its own CAS, so one of the two CASes counts it, and only one.
 */
final class Timer extends FutureTask<Void> {
    private static final int IN_HEAP = 0;
    private static final int COUNTED = 1;
    private static final int OUT = 2;
    private static final int MOVING = 3;
    private static final VarHandle PLACE;

    static {
        try {
            PLACE = MethodHandles.lookup().findVarHandle(Timer.class, "place", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The heap it is in; changed only by a move, under the new heap's lock (see above). */
    private volatile TimerHeap heap;
    /** When to run: a {@code System.nanoTime()} value. */
    final long when;
    @SuppressWarnings("unused") // accessed through PLACE
    private volatile int place = IN_HEAP;

    Timer(TimerHeap heap, Runnable task, long when) {
        super(task, null);
        this.heap = heap;
        this.when = when;
    }

    /**
     * Called by {@link #run()} with what the task threw, also when the future cannot keep it
     * (a {@code cancel(false)} that came while the task ran makes {@code FutureTask} drop it): the
     * failure goes to the scheduler's handler here, once, so that what a timer's task throws is
     * never lost, whatever {@code get()} then says.
     */
    @Override
    protected void setException(Throwable failure) {
        super.setException(failure);
        heap.taskFailed(failure);
    }

    /** Called once, by the thread that completed the future: counts a cancellation in the heap. */
    @Override
    protected void done() {
        if (isCancelled() && PLACE.compareAndSet(this, IN_HEAP, COUNTED)) {
            heap.cancelled(1);
        }
    }

    /** Under the heap's lock: the timer leaves the heap; uncounts its cancellation if it was counted. */
    void takenOut() {
        if ((int) PLACE.getAndSet(this, OUT) == COUNTED) {
            heap.cancelled(-1);
        }
    }

    /**
     * Under its heap's lock: the timer leaves it to move to another heap. False if it was
     * cancelled (and counted): then it is taken out instead, uncounted, and does not move.
     */
    boolean startMove() {
        if (PLACE.compareAndSet(this, IN_HEAP, MOVING)) {
            return true;
        }
        takenOut();
        return false;
    }

    /**
     * Under {@code to}'s lock, once the timer is in {@code to}'s array: it belongs to {@code to}
     * now; a cancel that came while it moved is counted there.
     */
    void endMove(TimerHeap to) {
        heap = to;
        PLACE.setVolatile(this, IN_HEAP); // only the mover changes MOVING: a plain volatile write is enough
        if (isCancelled() && PLACE.compareAndSet(this, IN_HEAP, COUNTED)) {
            to.cancelled(1);
        }
    }
}
