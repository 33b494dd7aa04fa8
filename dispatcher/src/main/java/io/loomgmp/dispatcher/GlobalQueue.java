package io.loomgmp.dispatcher;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The global run queue (Go's {@code sched.runq}): tasks that no P owns, in two lanes, each a
 * lock-free {@link ConcurrentLinkedQueue}, so that any thread puts and any carrier takes without
 * the scheduler lock (as ForkJoinPool's external submission queues do).
 * <ul>
 *   <li><b>ready</b>: tasks made runnable that have not run since — submitted from threads that
 *       are not carriers (a platform thread, an I/O poller, a JDK timer thread), and the overflow
 *       of full local rings. Its elements are tasks, and <em>batches</em>: a ring's overflow (up
 *       to {@link #MAX_BATCH} tasks, oldest first) is one element, linked by one CAS and taken
 *       whole by one carrier, which queues it on its ring (or, if its ring has no room for it,
 *       runs the first task and puts the rest back as one batch: {@code RunLoop.firstOf}). Go
 *       links a batch's goroutines likewise and puts them under one lock; a node and a CAS per
 *       task each way were most of what a fan-out spent on the global queue. The scheduling loop
 *       serves it at least every
 *       {@link RunLoop#GLOBAL_CHECK_NANOS}, before the local ring when that much time has
 *       passed, so outside work never waits behind a P's local work for more than that (plus the
 *       running task's time slice).</li>
 *   <li><b>yielded</b>: tasks that gave up their P after running — preempted at a poll (Go's
 *       {@code gopreempt_m} puts them on the global queue). Taken one at a time when a P has
 *       nothing local and nothing ready, and on the fairness tick: CPU-bound threads take turns
 *       across all Ps, and never ahead of work that became runnable meanwhile.</li>
 * </ul>
 *
 * <h2>The reserve: no task lost when memory runs out</h2>
 * A put into a lane allocates a node. Go's global queue links its goroutines themselves and never
 * allocates; our tasks are the JDK's objects, so the nodes are ours to find. When a node cannot be
 * allocated (an {@code OutOfMemoryError}: the application has filled the heap), the task goes to
 * the <em>reserve</em> instead: a ring of slots allocated ahead (at construction, and when
 * {@code setProcs} makes Ps), guarded by its own lock (an AQS lock: its waiters survive an
 * {@code OutOfMemoryError} too). Carriers take from the reserve first, so it empties as soon as
 * anything runs. It has room for every task that the scheduler itself moves here: the queue of
 * every P ({@link #movedRoomPerProcessor} each, a P's ring and runnext), a task in hand for every
 * carrier, and {@link #RESERVE_FOR_SUBMITTERS} more for submitters:
 * <ul>
 *   <li>A <b>move</b> ({@link #putMoved}, {@link #putOverflow}: a full ring's overflow, a retired
 *       or given-back P's queue, a failed carrier's task in hand) never fails: the task is in the
 *       lane, or in the reserve, or (should the reserve ever be full too) the mover waits for room,
 *       retrying every {@link #FULL_RESERVE_RETRY_NANOS}. Work the scheduler has accepted is never
 *       dropped.</li>
 *   <li>A <b>submission</b> ({@link #putReady}, {@link #putYielded}) may use the reserve while it
 *       holds fewer than {@link #RESERVE_FOR_SUBMITTERS} tasks; beyond that it throws the
 *       {@code OutOfMemoryError} with nothing queued: the JDK retries a virtual thread's submission
 *       every 100 ms until it succeeds.</li>
 * </ul>
 * Each use of the reserve is reported ({@link SchedulerFailure.Site#GLOBAL_QUEUE}).
 *
 * <h2>Sizes and emptiness</h2>
 * Each lane keeps an approximate size in tasks, a batch counting its tasks (incremented after the
 * offer, decremented after the poll), for batch sizes, hints and snapshots; the reserve's count
 * ({@link #reserved}) is exact and is counted with the ready lane. Where a decision must not miss
 * a task, the wake-up protocol asks {@link #isEmpty()}, which asks the queues themselves: an offer
 * is linked by a volatile CAS, a task in the reserve is published by a volatile write of the
 * count, and {@code isEmpty} reads the links and the count with volatile reads, so "put, then read
 * the idle count" on one side and "publish idle, then check {@code isEmpty}" on the other cannot
 * both miss (see {@link Idle}).
 */
final class GlobalQueue {
    /** Most tasks in one element of the ready lane: a full ring's overflow, half the ring plus one. */
    static final int MAX_BATCH = RunQueue.CAPACITY / 2 + 1;
    /** Tasks that submissions (not moves) may leave in the reserve. */
    static final int RESERVE_FOR_SUBMITTERS = 256;
    /** How long a move waits before it tries again when even the reserve is full. */
    static final long FULL_RESERVE_RETRY_NANOS = 1_000_000;

    /** Elements: a task ({@code Runnable}) or a batch ({@code Object[]} of tasks, every slot set, oldest first). */
    private final ConcurrentLinkedQueue<Object> ready = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Runnable> yielded = new ConcurrentLinkedQueue<>();
    private final AtomicInteger readySize = new AtomicInteger();
    private final AtomicInteger yieldedSize = new AtomicInteger();
    private final Failures failures;

    private final ReentrantLock reserveLock = new CarrierSafeLock();
    /** A ring: slots {@code [reserveHead, reserveHead + reserved)}, modulo its length. Under {@link #reserveLock}. */
    private Runnable[] reserve;
    /** Under {@link #reserveLock}. */
    private int reserveHead;
    /** Tasks in the reserve. Written under {@link #reserveLock}; volatile for the lock-free looks. */
    private volatile int reserved;

    /**
     * Tests only ({@link TestSeams#allocationFault}): runs before each node allocation; what it
     * throws stands for an {@code OutOfMemoryError} there. Null in use.
     */
    private final Runnable allocationFaultForTests;

    /** A queue alone, for tests of it (jcstress): room in its reserve for one P; no reports. */
    GlobalQueue() {
        this(null);
    }

    /** A queue alone whose node allocations run {@code allocationFault} first (jcstress). */
    GlobalQueue(Runnable allocationFault) {
        this(null, 1, 1, allocationFault);
    }

    /**
     * @param procs           the Ps made; see {@link #ensureReserve}
     * @param allocationFault null, or a test's stand-in for an {@code OutOfMemoryError}
     */
    GlobalQueue(Failures failures, int procs, int maxCarriers, Runnable allocationFault) {
        this.failures = failures;
        this.reserve = new Runnable[reserveCapacity(procs, maxCarriers)];
        this.allocationFaultForTests = allocationFault;
    }

    /** A P's whole queue: its ring and its runnext. */
    static int movedRoomPerProcessor() {
        return RunQueue.CAPACITY + 1;
    }

    private static int reserveCapacity(int procs, int maxCarriers) {
        return procs * movedRoomPerProcessor() + maxCarriers + RESERVE_FOR_SUBMITTERS;
    }

    /**
     * {@link ProcResize}, before it makes Ps up to {@code procs}: grows the reserve for their
     * queues. May throw an {@code OutOfMemoryError}, changing nothing.
     */
    void ensureReserve(int procs, int maxCarriers) {
        int capacity = reserveCapacity(procs, maxCarriers);
        if (capacity <= reserveLength()) {
            return;
        }
        Runnable[] bigger = new Runnable[capacity];
        reserveLock.lock();
        try {
            int n = reserved;
            for (int i = 0; i < n; i++) {
                bigger[i] = reserve[(reserveHead + i) % reserve.length];
            }
            reserve = bigger;
            reserveHead = 0;
        } finally {
            reserveLock.unlock();
        }
    }

    private int reserveLength() {
        reserveLock.lock();
        try {
            return reserve.length;
        } finally {
            reserveLock.unlock();
        }
    }

    /**
     * Any thread: a submission. Throws an {@code OutOfMemoryError}, with nothing queued, only when
     * neither the lane nor the submitters' part of the reserve can take it.
     */
    void putReady(Runnable task) {
        try {
            offer(ready, task);
            readySize.incrementAndGet();
        } catch (OutOfMemoryError noNode) {
            if (!toReserve(task, RESERVE_FOR_SUBMITTERS)) {
                throw noNode;
            }
            reserved(noNode, "a submitted task");
        }
    }

    /** Any thread: a task preempted at a poll. Fails as {@link #putReady} does. */
    void putYielded(Runnable task) {
        try {
            offer(yielded, task);
            yieldedSize.incrementAndGet();
        } catch (OutOfMemoryError noNode) {
            if (!toReserve(task, RESERVE_FOR_SUBMITTERS)) {
                throw noNode;
            }
            reserved(noNode, "a yielded task");
        }
    }

    /**
     * Any thread: a task the scheduler moves here (accepted work: queued even if closed). Never
     * fails: see the class comment.
     */
    void putMoved(Runnable task) {
        try {
            offer(ready, task);
            readySize.incrementAndGet();
        } catch (OutOfMemoryError noNode) {
            toReserveOrWait(task);
            reserved(noNode, "a task the scheduler moved");
        }
    }

    /**
     * The owner of a full ring: appends its overflow, {@code batch[0, n)} (oldest first,
     * {@code n <= MAX_BATCH}), as one element (a copy), linked by one CAS, then clears those slots.
     * Never fails: see the class comment. The copy's slots are written before the CAS that links
     * it, so a taker, which reads them after its own CAS, sees them all.
     */
    void putOverflow(Object[] batch, int n) {
        assert n >= 1 && n <= MAX_BATCH : n + " tasks in one batch";
        try {
            if (allocationFaultForTests != null) {
                allocationFaultForTests.run();
            }
            // The copy and the node are made first: the batch is linked whole, or not at all.
            ready.offer(n == 1 ? batch[0] : Arrays.copyOf(batch, n));
            readySize.addAndGet(n);
        } catch (OutOfMemoryError noNodes) {
            for (int i = 0; i < n; i++) {
                toReserveOrWait((Runnable) batch[i]);
            }
            reserved(noNodes, "a full ring's overflow");
        } finally {
            Arrays.fill(batch, 0, n, null); // the owner's buffer must not keep finished tasks reachable
        }
    }

    private <T> void offer(ConcurrentLinkedQueue<T> lane, T task) {
        if (allocationFaultForTests != null) {
            allocationFaultForTests.run();
        }
        lane.offer(task); // allocates its node first: an OutOfMemoryError leaves the lane as it was
    }

    /** Puts {@code task} in the reserve if it holds fewer than {@code limit} tasks. */
    private boolean toReserve(Runnable task, int limit) {
        reserveLock.lock();
        try {
            int n = reserved;
            if (n >= Math.min(limit, reserve.length)) {
                return false;
            }
            reserve[(reserveHead + n) % reserve.length] = task;
            reserved = n + 1; // volatile: publishes the slot to isEmpty's readers
            return true;
        } finally {
            reserveLock.unlock();
        }
    }

    /** A move: into the lane or the reserve, waiting for room while neither can take it. */
    private void toReserveOrWait(Runnable task) {
        while (!toReserve(task, Integer.MAX_VALUE)) {
            // Full: the carriers take from the reserve first, so room comes as soon as one runs.
            LockSupport.parkNanos(this, FULL_RESERVE_RETRY_NANOS);
            try {
                offer(ready, task);
                readySize.incrementAndGet();
                return;
            } catch (OutOfMemoryError stillNone) {
                // try the reserve again
            }
        }
    }

    /** Never throws: {@link Failures#report} does not. */
    private void reserved(OutOfMemoryError cause, String what) {
        if (failures == null) {
            return; // a queue alone, in a test
        }
        failures.report(SchedulerFailure.Site.GLOBAL_QUEUE, cause,
                what + " went to the global queue's reserve, which carriers take from first");
    }

    private Runnable pollReserve() {
        reserveLock.lock();
        try {
            int n = reserved;
            if (n == 0) {
                return null;
            }
            Runnable task = reserve[reserveHead];
            reserve[reserveHead] = null;
            reserveHead = (reserveHead + 1) % reserve.length;
            reserved = n - 1;
            return task;
        } finally {
            reserveLock.unlock();
        }
    }

    /**
     * Any carrier. The oldest ready element (the reserve's first task, else the lane's head): a
     * task ({@code Runnable}), or a batch ({@code Object[]} of tasks, every slot set, oldest first, at
     * most {@link #MAX_BATCH}), which is now the taker's to queue; {@code null} if there is none.
     */
    Object pollReady() {
        if (reserved != 0) {
            Runnable task = pollReserve();
            if (task != null) {
                return task;
            }
        }
        Object element = ready.poll();
        if (element instanceof Object[] batch) {
            readySize.addAndGet(-batch.length);
        } else if (element != null) {
            readySize.decrementAndGet();
        }
        return element;
    }

    /** Any carrier. The oldest yielded task, or {@code null}. */
    Runnable pollYielded() {
        Runnable task = yielded.poll();
        if (task != null) {
            yieldedSize.decrementAndGet();
        }
        return task;
    }

    /** Any carrier. A ready element ({@link #pollReady}) if there is one, else a yielded task, or {@code null}. */
    Object poll() {
        Object element = pollReady();
        return element != null ? element : pollYielded();
    }

    /**
     * Any thread. Takes {@code task} out again if no carrier has taken it yet (a submission that
     * raced with {@code close}); true if it did.
     */
    boolean remove(Runnable task) {
        if (ready.remove(task)) { // a submission is put alone, not in a batch
            readySize.decrementAndGet();
            return true;
        }
        if (yielded.remove(task)) {
            yieldedSize.decrementAndGet();
            return true;
        }
        return reserved != 0 && removeFromReserve(task);
    }

    private boolean removeFromReserve(Runnable task) {
        reserveLock.lock();
        try {
            int n = reserved;
            for (int i = 0; i < n; i++) {
                if (reserve[(reserveHead + i) % reserve.length] == task) {
                    for (int j = i; j < n - 1; j++) { // close the gap, keeping the order
                        reserve[(reserveHead + j) % reserve.length] = reserve[(reserveHead + j + 1) % reserve.length];
                    }
                    reserve[(reserveHead + n - 1) % reserve.length] = null;
                    reserved = n - 1;
                    return true;
                }
            }
            return false;
        } finally {
            reserveLock.unlock();
        }
    }

    /** Any thread, exact at some moment during the call: whether both lanes and the reserve are empty. */
    boolean isEmpty() {
        return reserved == 0 && ready.isEmpty() && yielded.isEmpty();
    }

    /** Any thread: a hint (the reserve counted), e.g. for the scheduling loop's fast path; exact once puts and polls settle. */
    int readySize() {
        return Math.max(0, readySize.get()) + reserved;
    }

    /** Any thread: a hint, like {@link #readySize()}: preempted tasks waiting for their next time slice. */
    int yieldedSize() {
        return Math.max(0, yieldedSize.get());
    }

    /** Any thread: a hint, like {@link #readySize()}. */
    int size() {
        return readySize() + Math.max(0, yieldedSize.get());
    }
}
