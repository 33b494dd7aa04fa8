package io.loomgmp.dispatcher;

import java.util.concurrent.FutureTask;

/**
 * One timer of a P's {@link TimerHeap}: a task to run on a carrier at {@link #when} (a
 * {@link System#nanoTime()} value). It is the {@link java.util.concurrent.Future} that
 * {@link GmpScheduler#schedule} returns, built on the JDK's {@link FutureTask}, whose state
 * machine makes "run" and "cancel" exclusive: whichever CAS wins, the other does nothing.
 *
 * <p>Cancelling (any thread: for a virtual thread, the JDK cancels its timeout when an unpark
 * beat it, the common case) is one CAS plus one atomic add: the timer is not taken out of the
 * heap then, but counted as cancelled there; whoever next holds the heap's lock drops it, or
 * compacts the heap once cancelled timers are more than a quarter of it (Go's lazy
 * {@code deltimer}). {@code FutureTask} drops its reference to the task on cancel, so a
 * cancelled timer does not keep a virtual thread reachable.
 *
 */
final class Timer extends FutureTask<Void> {
    private final TimerHeap heap;
    /** When to run: a {@code System.nanoTime()} value. */
    final long when;

    Timer(TimerHeap heap, Runnable task, long when) {
        super(task, null);
        this.heap = heap;
        this.when = when;
    }

    /** Called once, by the thread that completed the future: counts a cancellation in the heap. */
    @Override
    protected void done() {
        if (isCancelled()) {
            heap.cancelled();
        }
    }
}
