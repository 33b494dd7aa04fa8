package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A P: the right to run tasks, and the run queue that goes with it. There are exactly
 * {@code procs} active ones; {@code setProcs} ({@link ProcResize}) retires the surplus and
 * activates them again (P objects are made once and kept: their counters stay in the totals).
 *
 * <p>Ownership: a P is held by at most one carrier at a time ({@link #holder}, protocol in
 * {@link Lease}); it is handed from carrier to carrier only under the scheduler lock, which orders
 * one holder's plain accesses before the next's. Everything here except the run queue's thief
 * side, the holder and the counters' readers belongs to the holder and is accessed plainly by it.
 */
final class Processor {
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    final int id;
    final RunQueue runQueue = new RunQueue();
    /** This P's timers; any thread may add, any carrier holding a P may run the due ones. */
    final TimerHeap timers;

    /**
     * When this P last took a task from the global ready lane ({@code System.nanoTime()}), for the
     * time bound on how long local work may keep it waiting, and for sysmon, which asks a long
     * task to give way only when no P has served the ready lane for a while. Written by the holder
     * with setOpaque; read by sysmon with getOpaque (a long: opaque access is atomic).
     */
    private long readyTakenAt;

    /**
     * The latest batch of ready tasks that {@code RunLoop} moved into this P's ring from the global
     * queue ({@code grabReadyBatch}, {@code firstOf}; the task it ran at once aside): the ring
     * index just past its last task, and when it was grabbed (0: never). While the ring's head has
     * not passed that index, work from outside waits behind whatever this P runs, where no other
     * busy P can take it; sysmon asks a long task to give way to it as it does for the ready lane.
     * Written by the holder once per batch, read by sysmon: volatile, and the pair may be torn (one
     * batch's index with another's time), which costs at most one look at the wrong moment, never a
     * task.
     */
    private volatile int readyBatchEnd;
    private volatile long readyBatchAt;

    /**
     * From when the next preempted task may run on this P ahead of other work
     * ({@code System.nanoTime()}; {@code RunLoop}'s step 1b): half as long after the last
     * preempted task's slice as that slice lasted, and at least {@link RunLoop#PREEMPTED_TURN_NANOS}
     * ({@link #preemptedSliceEnded}), so that while both wait, preempted tasks get about two thirds
     * of the P and other work a third ({@link RunLoop#PREEMPTED_WEIGHT}). Holder only.
     */
    long preemptedTurnAt = System.nanoTime();
    /**
     * When this P last took a task from the yielded lane, and which (null once its slice ended).
     * Written by the holder; volatile, since sysmon reads them too ({@link #preemptedSliceStartedAt}):
     * written at most once per preempted slice, so the cost does not matter.
     */
    private volatile long preemptedTakenAt;
    private volatile Runnable preemptedTask;

    /**
     * Sysmon: when the slice of {@code running}, the task this P's carrier runs, started, if this
     * P took it from the yielded lane (0 otherwise). Sysmon times a task from its own first look
     * at it, which with a slow cadence may come long after the task started; a preempted task's
     * slice is known exactly, so a sleeper's due timer is not kept waiting a whole give-way delay
     * by a hog that has already run that long. Racy: the task and the time may belong to two
     * different takes for a moment, which costs one early or late request, never a lost one.
     */
    long preemptedSliceStartedAt(Runnable running) {
        long at = preemptedTakenAt;
        return running != null && preemptedTask == running ? at : 0;
    }

    /** Holder only: this P took preempted task {@code task} from the yielded lane at {@code now}. */
    void preemptedTaken(Runnable task, long now) {
        preemptedTakenAt = now;
        preemptedTask = task;
        preemptedTurnAt = now + RunLoop.PREEMPTED_TURN_NANOS; // and more if its slice is cut (preemptedSliceEnded)
    }

    /**
     * Holder only: {@code task}'s slice ended at {@code now} (it yielded at a poll) after
     * {@code ran} nanoseconds as sysmon saw it (0 if unknown: sysmon saw it start late, or not at
     * all); other work has the P for {@code 1 / RunLoop.PREEMPTED_WEIGHT} as long before the next
     * preempted task's turn (of at most {@code maxSlice}), and at least
     * {@link RunLoop#PREEMPTED_TURN_NANOS}. If {@code task} is the one this P last took from the
     * yielded lane, its slice is known exactly: sysmon's late first look must not shorten the
     * turn of other work.
     */
    void preemptedSliceEnded(Runnable task, long now, long ran, long maxSlice) {
        long slice = task == preemptedTask ? now - preemptedTakenAt : ran;
        preemptedTask = null;
        long otherWork = Math.min(slice, maxSlice) / RunLoop.PREEMPTED_WEIGHT;
        preemptedTurnAt = now + Math.max(RunLoop.PREEMPTED_TURN_NANOS, otherWork);
    }

    /** The schedtick of the run that step 2 last gave a ready task, so that local work runs between two. Holder only. */
    long readyTakenTick = -2;

    /**
     * A task on this P yielded while ready work waited on the global queue: the next schedule
     * takes a ready task before the ring ({@code RunLoop}'s step 2). Written by the yielding task
     * on the holder's carrier, read and cleared by that carrier's loop: one thread, plain. If
     * sysmon retook the P meanwhile, the next holder takes one ready task early, nothing worse.
     */
    boolean readyTurnOwed;

    /**
     * Schedules of this P that did not inherit a time slice (Go's schedtick). Holder only: written
     * plainly; readers elsewhere (snapshots, later sysmon) read it with {@link #schedtick()}.
     */
    private long schedtick;

    /**
     * Who holds this P and in which phase; see {@link Lease} for the protocol. Written only by the
     * methods below, one per transition of the lease: {@link #acquire}, {@link #release},
     * {@link #enterTask}, {@link #leaveTask}, {@link #beginOwnerOp}, {@link #endOwnerOp} and
     * {@link #retake}.
     */
    private volatile Lease holder;

    /**
     * {@link ProcResize} retired this P: whoever holds it gives it up at its next scheduling
     * point, its queue moved to the global queue, and it does not go back on the idle list.
     * Written under the scheduler lock (a volatile write, rare); read under the lock
     * ({@link #isRetired}), or by the holder without it as a hint ({@link #retiredHint}) that it
     * then acts on under the lock. See {@link ProcResize} for the whole protocol.
     */
    private volatile boolean retired;

    /**
     * Retired but not given up yet: held by a carrier, in transit to one, or retaken by sysmon.
     * Counted in {@link ProcResize#retiring()}. Under the scheduler lock.
     */
    boolean retiring;

    /**
     * In transit to a carrier that sysmon is to start ({@link Carriers#startFor}): 0 none,
     * {@link Carriers#DEFERRED_START} or {@link Carriers#DEFERRED_SPINNING_START}. Written by the
     * P's exclusive owner (the reserver), then cleared by sysmon, which starts the carrier.
     */
    volatile int deferredStart;

    /** Sysmon asked the running task to give this P up; changed only through {@link Preemption}. */
    volatile boolean preemptRequested;

    /**
     * Counters indexed by {@link Counter#ordinal()}. Holder writes with setOpaque (atomic, no
     * fence: only the holder writes, and the handover under the scheduler lock orders one holder's
     * writes before the next's); snapshots read with getOpaque.
     */
    private final long[] counts = new long[Counter.values().length];

    /**
     * This P's scheduling-latency histograms, made by the holder at its first sample. Written by
     * the holder with setRelease, so that a snapshot that reads it with getAcquire sees it built;
     * the holder itself reads it plainly (it or an earlier holder wrote it, ordered by the
     * handover).
     */
    private LatencyRecorder latency;

    /**
     * The idle list's links ({@link Idle}; Go's {@code p.link}): the list runs through the Ps
     * themselves, so that putting a P on it, taking it off, and taking a given P out of the
     * middle are O(1) and allocate nothing. Under the scheduler lock; {@link #onIdleList} says
     * whether this P is on it.
     */
    Processor idleNext;
    Processor idlePrev;
    boolean onIdleList;

    /** The scheduler lock, for the asserts of the methods that must hold it; null for a P alone. */
    private final ReentrantLock schedulerLock;

    /** A P alone, for tests of its parts. */
    Processor(int id) {
        this(id, null, new TimerHeap());
    }

    /** A P of the scheduler whose lock is {@code schedulerLock}, with its heap of {@code timers}. */
    Processor(int id, ReentrantLock schedulerLock, TimerHeap timers) {
        this.id = id;
        this.schedulerLock = schedulerLock;
        this.timers = timers;
    }

    /** Who holds this P now, and in which phase ({@link Lease}); {@code null}: nobody. */
    Lease holder() {
        return holder;
    }

    /**
     * Carrier {@code m} takes this P, which nobody holds: off the idle list under the scheduler
     * lock, or handed to {@code m} ({@code Carrier.nextP}, a carrier being started), so that
     * {@code m} owns it exclusively. A volatile write; the lock or the hand-over's volatile
     * {@code nextP} orders the last holder's plain accesses before {@code m}'s.
     */
    void acquire(Carrier m) {
        assert holder == null : "acquire: P " + id + " is held by " + holder;
        holder = m.inLoop;
        m.p = this;
    }

    /**
     * The P is let go: by its holder in its loop, or by whoever took it ({@link #retake}, a
     * failed carrier's P), under the scheduler lock or as its exclusive owner just before putting
     * it on the idle list. Never while a task may still act as its owner: {@code m.inTask} and
     * {@code m.busy} are never released here.
     */
    void release() {
        Lease lease = holder;
        assert lease == null || lease == Lease.RETAKEN || lease == lease.carrier.inLoop
                : "release: P " + id + " is held by " + lease;
        holder = null;
    }

    /** The carrier holding this P, or {@code null} when it is idle, in transit or being retaken. */
    Carrier owner() {
        Lease lease = holder;
        return lease == null ? null : lease.carrier;
    }

    /** Carrier {@code m}, running a task, claims the P's queues for one operation. */
    boolean beginOwnerOp(Carrier m) {
        return HOLDER.compareAndSet(this, m.inTask, m.busy);
    }

    /** Ends what {@link #beginOwnerOp} began; release: the queue writes happen-before sysmon's CAS. */
    void endOwnerOp(Carrier m) {
        HOLDER.setRelease(this, m.inTask);
    }

    /** Carrier {@code m}, holding the P in its loop, starts a task: sysmon may now retake the P. */
    void enterTask(Carrier m) {
        HOLDER.setRelease(this, m.inTask);
    }

    /** Carrier {@code m}'s task returned: true if m still holds the P (sysmon did not take it). */
    boolean leaveTask(Carrier m) {
        return HOLDER.compareAndSet(this, m.inTask, m.inLoop);
    }

    /** Sysmon: takes the P from {@code m}, which must be running a task. */
    boolean retake(Carrier m) {
        return HOLDER.compareAndSet(this, m.inTask, Lease.RETAKEN);
    }

    /** Must hold the scheduler lock ({@link ProcResize}). */
    void setRetired(boolean retired) {
        assert schedulerLockHeld();
        this.retired = retired;
    }

    /** Must hold the scheduler lock: the writes are made under it, so the read is exact. */
    boolean isRetired() {
        assert schedulerLockHeld();
        return retired;
    }

    /** For asserts: whether this thread holds the scheduler lock (always, for a P alone). */
    private boolean schedulerLockHeld() {
        return schedulerLock == null || schedulerLock.isHeldByCurrentThread();
    }

    /**
     * The holder, in its scheduling loop, at every schedule: whether this P was retired. It orders
     * nothing (the holder acts on it only under the scheduler lock, which orders everything the
     * resizer wrote before it); it only has to be seen eventually, which a volatile read, never
     * hoisted out of the loop, ensures. On x86 that is a plain load of a line the loop reads
     * anyway, and no VarHandle call to run while the JIT has not compiled the loop fully.
     */
    boolean retiredHint() {
        return retired;
    }

    /** Holder only. */
    void count(Counter counter) {
        count(counter, 1);
    }

    /** Holder only: reads its own count plainly (only the holder writes it), writes it opaque. */
    void count(Counter counter, long delta) {
        int i = counter.ordinal();
        COUNTS.setOpaque(counts, i, counts[i] + delta);
    }

    /** Any thread. */
    long counted(Counter counter) {
        return (long) COUNTS.getOpaque(counts, counter.ordinal());
    }

    /** Holder only: this P's latency histograms, made at the first call. */
    LatencyRecorder latencyRecorder() {
        LatencyRecorder recorder = latency;
        if (recorder == null) {
            recorder = new LatencyRecorder();
            LATENCY.setRelease(this, recorder);
        }
        return recorder;
    }

    /** Any thread: this P's latency histograms, or null if it has recorded none. */
    LatencyRecorder latencyRecorderIfAny() {
        return (LatencyRecorder) LATENCY.getAcquire(this);
    }

    /** Holder only: this P took a task from the global ready lane at {@code now}. */
    void readyTaken(long now) {
        READY_TAKEN_AT.setOpaque(this, now);
    }

    /** Any thread: when this P last took a task from the global ready lane. */
    long readyTakenAt() {
        return (long) READY_TAKEN_AT.getOpaque(this);
    }

    /** Holder only: {@link #readyTakenAt()}, read plainly, as only the holder writes it. */
    long ownReadyTakenAt() {
        return readyTakenAt;
    }

    /** Holder only: a batch of ready tasks grabbed at {@code now} ends before ring index {@code end}. */
    void readyBatched(long now, int end) {
        readyBatchEnd = end;
        readyBatchAt = now;
    }

    /**
     * Any thread: when the ready tasks of the latest batch were grabbed, if some still wait in this
     * P's ring; else 0.
     */
    long readyBatchWaitingSince() {
        long at = readyBatchAt;
        return at != 0 && !runQueue.passed(readyBatchEnd) ? at : 0;
    }

    /** Holder only: a new time slice starts. */
    void tick() {
        SCHEDTICK.setOpaque(this, schedtick + 1);
    }

    /** Any thread. */
    long schedtick() {
        return (long) SCHEDTICK.getOpaque(this);
    }

    /** Holder only: {@link #schedtick()}, read plainly, as only the holder writes it. */
    long ownSchedtick() {
        return schedtick;
    }

    private static final VarHandle SCHEDTICK;
    private static final VarHandle READY_TAKEN_AT;
    private static final VarHandle HOLDER;
    private static final VarHandle LATENCY;

    static {
        try {
            SCHEDTICK = MethodHandles.lookup().findVarHandle(Processor.class, "schedtick", long.class);
            READY_TAKEN_AT = MethodHandles.lookup().findVarHandle(Processor.class, "readyTakenAt", long.class);
            HOLDER = MethodHandles.lookup().findVarHandle(Processor.class, "holder", Lease.class);
            LATENCY = MethodHandles.lookup().findVarHandle(Processor.class, "latency", LatencyRecorder.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public String toString() {
        return "P" + id;
    }
}
