package io.loomgmp.dispatcher;

import java.util.concurrent.ThreadLocalRandom;

/**
 * A searching carrier's look at the other Ps' queues (Go's {@code stealWork}, step 7 of
 * {@code RunLoop.findRunnable}): a few passes over the busy Ps in a random order, taking half of
 * the first non-empty ring ({@link RunQueue#stealHalfFrom}, Go's {@code runqsteal}), and a running
 * victim's runnext only on the last pass and after a grace. The ring's side of a steal, and why it
 * loses or duplicates no task, is in {@link RunQueue}. Nothing here throws but an
 * {@code OutOfMemoryError} making a new victim order after a resize, which ends the carrier as
 * any failure of its loop does ({@code Carriers.live}) with nothing taken yet.
 */
final class Stealing {
    /** Steal passes over the other Ps before giving up (Go's stealTries). */
    static final int STEAL_PASSES = 4;
    /**
     * How long a thief waits before taking a running victim's runnext: the victim is most likely
     * about to run it (a hand-off in progress), and a steal would cost it its warm cache. Go
     * sleeps 3 µs; we spin, as a parkNanos this short oversleeps by tens of microseconds.
     */
    static final long RUNNEXT_GRACE_NANOS = 3_000;

    private final Scheduling scheduling;
    /**
     * The random victim orders for the Ps made so far; replaced when more Ps are made
     * ({@link ProcResize}). A plain field: the object is immutable with final fields, so a thief
     * that reads a stale or a fresh one sees it whole, and a stale one is replaced at its next use.
     */
    private StealOrder stealOrder;

    /** Strides coprime with {@code procs}, so that {@code i = (i + stride) % procs} visits every P once (Go's randomOrder). */
    private static final class StealOrder {
        final int procs;
        final int[] strides;

        StealOrder(int procs) {
            this.procs = procs;
            this.strides = coprimesOf(procs);
        }
    }

    Stealing(Scheduling scheduling) {
        this.scheduling = scheduling;
        this.stealOrder = new StealOrder(scheduling.allocated);
    }

    /**
     * Up to {@link #STEAL_PASSES} passes over the other busy Ps in a random order; takes half of
     * the first non-empty ring found. Victims' runnext only on the last pass.
     */
    Runnable stealWork(Carrier m, Processor p) {
        // Every P made: a retired P still held has a queue worth stealing (its task may run for
        // a while before its carrier gives it up); an idle or given-up one is skipped below.
        int n = scheduling.allocated;
        if (n == 1) {
            return null;
        }
        StealOrder order = stealOrder;
        if (order.procs != n) {
            order = new StealOrder(n);
            stealOrder = order; // racy but safe: immutable, final fields; the same for every writer
        }
        int[] stealStrides = order.strides;
        if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.STEAL_CALLS);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int pass = 0; pass < STEAL_PASSES; pass++) {
            boolean lastPass = pass == STEAL_PASSES - 1;
            if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.STEAL_PASSES);
            int start = random.nextInt(n);
            int stride = stealStrides[random.nextInt(stealStrides.length)];
            for (int k = 0, i = start; k < n; k++, i = (i + stride) % n) {
                Processor victim = scheduling.allp[i];
                if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.STEAL_VICTIMS);
                if (victim == p || victim.holder() == null) {
                    continue; // idle Ps have empty queues
                }
                int before = p.runQueue.size();
                if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.STEAL_TRIES);
                Runnable task = p.runQueue.stealHalfFrom(victim.runQueue, lastPass, RUNNEXT_GRACE_NANOS);
                if (task != null) {
                    int stolen = p.runQueue.size() - before + 1;
                    if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.STEAL_HITS);
                    p.count(Counter.STEALS);
                    p.count(Counter.STOLEN_TASKS, stolen);
                    if (Events.on()) {
                        Events.steal(m, p, victim, stolen);
                    }
                    return task;
                }
            }
        }
        return null;
    }

    /** Strides coprime with n, so that {@code i = (i + stride) % n} visits every P once (Go's randomOrder). */
    private static int[] coprimesOf(int n) {
        int count = 0;
        for (int i = 1; i <= n; i++) {
            count += gcd(i, n) == 1 ? 1 : 0;
        }
        int[] strides = new int[count]; // an array filled in a loop: a stream here cost every start-up its classes
        for (int i = 1, next = 0; i <= n; i++) {
            if (gcd(i, n) == 1) {
                strides[next++] = i;
            }
        }
        return strides;
    }

    private static int gcd(int a, int b) {
        while (b != 0) {
            int t = a % b;
            a = b;
            b = t;
        }
        return a;
    }
}
