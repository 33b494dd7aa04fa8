package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Which queued tasks carry a timestamp, for the scheduling latency (Go's
 * {@code /sched/latencies}): about one submission in {@link #sampleEvery} is <em>sampled</em>, its
 * task and the moment it was queued kept here until a carrier starts it, and the wait is then
 * recorded in the P's {@link LatencyRecorder}. Go keeps the timestamp in the goroutine and tracks
 * every 8th schedule of each one ({@code gTrackingPeriod}); a task here is a plain
 * {@code Runnable} (for a virtual thread, its one reused {@code runContinuation}) with no field to
 * spare, so the timestamp lives in this table instead.
 *
 * <h2>Implementation overview</h2>
 * A fixed array of slots, cut into groups of {@link #GROUP} adjacent slots; a task's group is
 * chosen by its {@link System#identityHashCode}. A slot holds {@code null} or an immutable
 * {@link Sample} (task, queued-at, made runnable by a timer). Every change of a slot is a CAS:
 * <ul>
 *   <li><b>claim</b> (submitter, before it queues the task): the first slot of the group that is
 *       empty or holds a sample older than {@link #STALE_NANOS}, {@code old → sample}. A full
 *       group drops the new sample (the task is simply not timed): keeping the older sample
 *       rather than the newer does not bias the figures against long waits.</li>
 *   <li><b>take</b> (the carrier that took the task off a queue, before it runs it): the slot of
 *       the group that holds a sample of that task, {@code sample → null}; the winner records.</li>
 *   <li><b>forget</b> (a submitter whose task could not be queued after all) and <b>sweep</b>
 *       (sysmon: samples older than a bound), {@code sample → null}.</li>
 * </ul>
 * Who may call what: {@link #claim}, {@link #forget}: any thread that submits;
 * {@link #take}: a carrier holding a P; {@link #sweep}, {@link #clear}: sysmon and shutdown;
 * {@link #shouldSample}: the submitter.
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>A sample is claimed before its task is queued, so every run of a task finds the sample
 *       of the queueing it comes from, unless that sample was dropped, replaced once stale, or
 *       swept: no run of a task ever misses its own sample and leaves it behind for a later run,
 *       which would then record the time the task spent parked as a wait.</li>
 *   <li>A sample is removed by exactly one CAS, so it is recorded at most once.</li>
 *   <li>The table pins at most {@code slots} tasks, and none for long: a sample whose task never
 *       runs (its submission failed after the claim and {@link #forget} failed too) is replaced
 *       by a claim once stale, swept by sysmon after {@link #STALE_NANOS} (sooner once every P
 *       has been idle for a second: then no task waits, so every sample left is such an orphan),
 *       and cleared when the scheduler terminates.</li>
 *   <li>Nothing here can lose or delay a task: the table is only looked at beside the queues,
 *       and a full group or a lost CAS only loses a sample.</li>
 * </ol>
 *
 * <h2>Memory ordering</h2>
 * The claim's CAS is a volatile write that precedes the queueing of the task, whose publication
 * (the ring's release store of its tail, or the global queue's CAS) the taking carrier acquires
 * before it calls {@link #take}: so the sample happens-before the take's reads, which use
 * {@code getOpaque} (coherent, and not hoisted out of the retry loop; nothing stronger is needed,
 * as the happens-before edge comes from the queue). {@link Sample}'s fields are final, so a
 * sample read through any slot is seen whole. Removals are CASes, so two carriers taking the same
 * task (a {@code Runnable} queued twice) cannot both record one sample.
 *
 * <h2>Cost</h2>
 * Per task run: an identity hash (a header load once the object has one; the VM installs it on
 * the first call, which a virtual thread's reused continuation pays once) and up to 4 reference
 * loads from one cache line. Per sampled submission: one small allocation, {@code nanoTime}, a
 * CAS; per sampled run, {@code nanoTime}, a CAS and the recorder's stores. With sampling off
 * ({@code sampleEvery} 0) none of it runs.
 *
 * <h2>Failure</h2>
 * Nothing here throws, except an {@code OutOfMemoryError} in {@link #claim}'s allocation; the
 * callers catch what escapes, report it as a {@link SchedulerFailure.Site#LATENCY_SAMPLE} failure
 * and go on with the task unsampled (see {@code Scheduling.submit} and {@code RunLoop}).
 */
final class LatencySamples {
    /** Slots a task may use: 4 references of 4 bytes (compressed), 16 bytes within one cache line. */
    static final int GROUP = 4;
    /**
     * A sample this old may be replaced by a claim or swept: 2<sup>34</sup> ns (17.2 s), where the
     * histogram's last bucket starts; a wait that long lands in that bucket anyway.
     */
    static final long STALE_NANOS = 1L << LatencyHistogram.MAX_EXPONENT;
    /** Slots sysmon sweeps per round: the whole table of a 2-P scheduler in 16 rounds. */
    static final int SWEEP_SLOTS = 64;
    /** Largest accepted {@code sampleEvery}. */
    static final int MAX_SAMPLE_EVERY = 1_000_000;
    /** Go's {@code gTrackingPeriod}. */
    static final int DEFAULT_SAMPLE_EVERY = 8;

    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Sample[].class);

    /** A sampled task: queued at {@code queuedAt} ({@code System.nanoTime()}); {@code timer}: made runnable by a timer. */
    record Sample(Runnable task, long queuedAt, boolean timer) {
    }

    /** About one submission in this many is sampled; 1: all; 0: none. */
    final int sampleEvery;
    private final Sample[] slots;
    /** Groups − 1; the number of groups is a power of two. */
    private final int groupMask;
    /** Where the next sweep starts. Sysmon only. */
    private int sweepCursor;

    /**
     * The table of a scheduler of {@code procs} Ps: 256 groups per P (room for the samples of a
     * few full rings even when every task is sampled), from 1,024 to 16,384 groups (16 to 256 KB
     * of references); none when sampling is off.
     *
     * @param sampleEvery 0 (off) to {@link #MAX_SAMPLE_EVERY}
     */
    static LatencySamples forProcs(int sampleEvery, int procs) {
        return new LatencySamples(sampleEvery,
                sampleEvery == 0 ? 0 : Integer.highestOneBit(Math.clamp(procs * 256L, 1_024, 16_384)));
    }

    /** {@code groups}: a power of two, or 0 when sampling is off. Tests choose it to make tasks collide. */
    LatencySamples(int sampleEvery, int groups) {
        if (sampleEvery < 0 || sampleEvery > MAX_SAMPLE_EVERY) {
            throw new IllegalArgumentException("latencySample must be from 0 to " + MAX_SAMPLE_EVERY
                    + " (0 turns sampling off, 1 times every task), was " + sampleEvery);
        }
        if (groups < 0 || Integer.bitCount(groups) > 1 || (groups == 0) != (sampleEvery == 0)) {
            throw new IllegalArgumentException("groups must be a power of two, 0 only when off: " + groups);
        }
        this.sampleEvery = sampleEvery;
        this.slots = new Sample[groups * GROUP];
        this.groupMask = groups - 1;
    }

    /** Whether latencies are sampled at all. */
    boolean on() {
        return sampleEvery != 0;
    }

    /**
     * The submitter, with sampling on: whether this submission is sampled. {@code m}: the carrier
     * the caller runs on (its own thread, or a virtual thread mounted on it), else null.
     * A carrier counts down a gap drawn at random around {@code sampleEvery} (uniform in
     * {@code [1, 2·sampleEvery − 1]}), so periodic workloads do not alias with the sampling and
     * the fast path is one decrement of an owner-only field; another thread draws at random.
     */
    boolean shouldSample(Carrier m) {
        if (sampleEvery == 1) {
            return true;
        }
        if (m == null) {
            return ThreadLocalRandom.current().nextInt(sampleEvery) == 0;
        }
        if (--m.untilSample > 0) {
            return false;
        }
        m.untilSample = 1 + ThreadLocalRandom.current().nextInt(2 * sampleEvery - 1);
        return true;
    }

    /**
     * Any thread, before queueing {@code task}: keeps a sample of it, queued at {@code queuedAt};
     * returns it, or null if the task's group is full of fresh samples (the task goes untimed).
     */
    Sample claim(Runnable task, long queuedAt, boolean timer) {
        Sample sample = new Sample(task, queuedAt, timer);
        int base = groupOf(task);
        for (int i = base; i < base + GROUP; i++) {
            Sample old = (Sample) SLOTS.getOpaque(slots, i);
            if ((old == null || queuedAt - old.queuedAt > STALE_NANOS) && SLOTS.compareAndSet(slots, i, old, sample)) {
                return sample;
            }
        }
        return null;
    }

    /** Any thread: drops {@code sample} if it is still here (its task was not queued after all). */
    void forget(Sample sample) {
        int base = groupOf(sample.task);
        for (int i = base; i < base + GROUP; i++) {
            if (SLOTS.getOpaque(slots, i) == sample && SLOTS.compareAndSet(slots, i, sample, null)) {
                return;
            }
        }
    }

    /**
     * A carrier that took {@code task} off a queue, before running it: removes and returns the
     * task's sample, or null if it has none.
     */
    Sample take(Runnable task) {
        int base = groupOf(task);
        for (int i = base; i < base + GROUP; i++) {
            Sample s;
            // Retry only while the slot still holds a sample of this task: a failed CAS means
            // another carrier took it (the same Runnable queued twice) or it went stale meanwhile.
            while ((s = (Sample) SLOTS.getOpaque(slots, i)) != null && s.task == task) {
                if (SLOTS.compareAndSet(slots, i, s, null)) {
                    return s;
                }
            }
        }
        return null;
    }

    /**
     * Sysmon: removes the samples queued more than {@code maxAgeNanos} before {@code now} from the
     * next {@code count} slots (the whole table if larger), going round the table over calls.
     */
    void sweep(long now, long maxAgeNanos, int count) {
        int n = Math.min(count, slots.length);
        int i = sweepCursor;
        for (int k = 0; k < n; k++, i++) {
            if (i >= slots.length) {
                i = 0;
            }
            Sample s = (Sample) SLOTS.getOpaque(slots, i);
            if (s != null && now - s.queuedAt > maxAgeNanos) {
                SLOTS.compareAndSet(slots, i, s, null); // lost to a take or a claim: nothing to sweep
            }
        }
        sweepCursor = i;
    }

    /** Once the scheduler has terminated: no task will run, so every sample left is dropped. */
    void clear() {
        for (int i = 0; i < slots.length; i++) {
            SLOTS.setOpaque(slots, i, null);
        }
    }

    /** Any thread: samples held now (racy; tests and diagnostics). */
    int held() {
        int n = 0;
        for (int i = 0; i < slots.length; i++) {
            if (SLOTS.getOpaque(slots, i) != null) {
                n++;
            }
        }
        return n;
    }

    /** Index of the first slot of {@code task}'s group (package-private for tests). */
    int groupOf(Runnable task) {
        int h = System.identityHashCode(task);
        return ((h ^ (h >>> 16)) & groupMask) * GROUP;
    }
}
