package io.loomgmp.dispatcher;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The global run queue (Go's {@code sched.runq}): tasks that no P owns, in two lanes, each a
 * lock-free {@link ConcurrentLinkedQueue}, so that any thread puts and any carrier takes without
 * the scheduler lock (as ForkJoinPool's external submission queues do).
 * <ul>
 *   <li><b>ready</b>: tasks made runnable that have not run since — submitted from threads that
 *       are not carriers (a platform thread, an I/O poller, a JDK timer thread), and the overflow
 *       of full local rings. The scheduling loop serves it at least every
 *       {@link RunLoop#GLOBAL_CHECK_NANOS}, before the local ring when that much time has
 *       passed, so outside work never waits behind a P's local work for more than that (plus the
 *       running task's time slice).</li>
 *   <li><b>yielded</b>: tasks that gave up their P after running — preempted at a poll (Go's
 *       {@code gopreempt_m} puts them on the global queue), or yielding with no local work
 *       behind them. Taken one at a time when a P has nothing local and nothing ready, and on the
 *       fairness tick: CPU-bound threads take turns across all Ps, and never ahead of work that
 *       became runnable meanwhile.</li>
 * </ul>
 *
 * <h2>Sizes and emptiness</h2>
 * Each lane keeps an approximate size (incremented after the offer, decremented after the poll),
 * for batch sizes, hints and snapshots. Where a decision must not miss a task, the wake-up
 * protocol asks {@link #isEmpty()}, which asks the queues themselves: an offer is linked by a
 * volatile CAS and {@code isEmpty} reads the links with volatile reads, so "put, then read the
 * idle count" on one side and "publish idle, then check {@code isEmpty}" on the other cannot both
 * miss (see {@link Idle}).
 *
 * <h2>Failure</h2>
 * An offer allocates a node; an {@code OutOfMemoryError} there leaves the queue as it was and
 * reaches the submitter before the task is queued.
 */
final class GlobalQueue {
    private final ConcurrentLinkedQueue<Runnable> ready = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Runnable> yielded = new ConcurrentLinkedQueue<>();
    private final AtomicInteger readySize = new AtomicInteger();
    private final AtomicInteger yieldedSize = new AtomicInteger();

    /** Any thread. */
    void putReady(Runnable task) {
        ready.offer(task);
        readySize.incrementAndGet();
    }

    /** Any thread. Appends a batch in its order (overflow of a local ring), linked by one CAS. */
    void putReadyBatch(Runnable[] batch) {
        ready.addAll(Arrays.asList(batch));
        readySize.addAndGet(batch.length);
    }

    /** Any thread. */
    void putYielded(Runnable task) {
        yielded.offer(task);
        yieldedSize.incrementAndGet();
    }

    /** Any carrier. The oldest ready task, or {@code null}. */
    Runnable pollReady() {
        Runnable task = ready.poll();
        if (task != null) {
            readySize.decrementAndGet();
        }
        return task;
    }

    /** Any carrier. The oldest yielded task, or {@code null}. */
    Runnable pollYielded() {
        Runnable task = yielded.poll();
        if (task != null) {
            yieldedSize.decrementAndGet();
        }
        return task;
    }

    /** Any carrier. A ready task if there is one, else a yielded one, or {@code null}. */
    Runnable poll() {
        Runnable task = pollReady();
        return task != null ? task : pollYielded();
    }

    /**
     * Any thread. Takes {@code task} out again if no carrier has taken it yet (a submission that
     * raced with {@code close}); true if it did.
     */
    boolean remove(Runnable task) {
        if (ready.remove(task)) {
            readySize.decrementAndGet();
            return true;
        }
        if (yielded.remove(task)) {
            yieldedSize.decrementAndGet();
            return true;
        }
        return false;
    }

    /** Any thread, exact at some moment during the call: whether both lanes are empty. */
    boolean isEmpty() {
        return ready.isEmpty() && yielded.isEmpty();
    }

    /** Any thread: a hint, e.g. for the scheduling loop's fast path; exact once puts and polls settle. */
    int readySize() {
        return Math.max(0, readySize.get());
    }

    /** Any thread: a hint, like {@link #readySize()}. */
    int size() {
        return Math.max(0, readySize.get()) + Math.max(0, yieldedSize.get());
    }
}
