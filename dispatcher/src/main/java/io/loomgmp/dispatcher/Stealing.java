package io.loomgmp.dispatcher;

import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;

/**
 * A searching carrier's look at the other Ps' queues (Go's {@code stealWork}, step 7 of
 * {@code RunLoop.findRunnable}): a few passes over the busy Ps from a random start, taking half
 * of the first non-empty ring ({@link RunQueue#stealHalfFrom}, Go's {@code runqsteal}), and a
 * running victim's runnext only on the last pass and after a grace. The ring's side of a steal,
 * and why it loses or duplicates no task, is in {@link RunQueue}. Nothing here allocates or
 * throws.
 *
 * <h2>The bound: a pass visits the busy Ps only</h2>
 * A pass walks the set bits of {@link Idle}'s busy mask (Go skips the Ps of its
 * {@code idlepMask} likewise), so it visits at most {@code busy - 1} victims and costs
 * O(busy Ps + Ps / 64), however many Ps are idle: a steal by one of 2 busy Ps out of 32 looks at
 * one victim a pass, not 31 (each look at an idle P read its holder, and the passes were most of
 * a searcher's time once Ps outnumbered the busy ones). At most {@link #STEAL_PASSES} passes, so a
 * steal looks at no more than {@code STEAL_PASSES * (busy - 1)} victims, and waits out the
 * runnext grace at most once per victim on the last pass. Skipping an idle P loses nothing: its
 * queue is empty; a P whose bit a pass read just before it was set gets its first task after
 * this look began, and its holder's submitter then sees this spinner and the spinner's own
 * re-check sees the task (Idle's class comment). Checked by {@code StealingTest}.
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
    /** Tests only: told the id of every P a pass looks at as a victim. Null in use. */
    private final IntConsumer victimSeen;

    Stealing(Scheduling scheduling) {
        this(scheduling, null);
    }

    /** Tests: {@code victimSeen} is told the id of every P a pass looks at as a victim. */
    Stealing(Scheduling scheduling, IntConsumer victimSeen) {
        this.scheduling = scheduling;
        this.victimSeen = victimSeen;
    }

    /**
     * Up to {@link #STEAL_PASSES} passes over the other busy Ps, each from a random start; takes
     * half of the first non-empty ring found. Victims' runnext only on the last pass.
     */
    Runnable stealWork(Carrier m, Processor p) {
        // Every P made: a retired P still held has a queue worth stealing (its task may run for
        // a while before its carrier gives it up), and its busy bit stays set until it is given up.
        int n = scheduling.allocated;
        if (n == 1) {
            return null;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int pass = 0; pass < STEAL_PASSES; pass++) {
            boolean lastPass = pass == STEAL_PASSES - 1;
            Runnable task = stealPass(m, p, n, random.nextInt(n), lastPass);
            if (task != null) {
                return task;
            }
        }
        return null;
    }

    /**
     * One pass: the busy Ps of {@code [0, n)} other than {@code p}, in the order of their ids from
     * {@code start} round to {@code start - 1} (the busy mask's words from {@code start}'s, the
     * first one's bits at and above {@code start} first and those below it last).
     */
    private Runnable stealPass(Carrier m, Processor p, int n, int start, boolean lastPass) {
        Idle idle = scheduling.idle;
        int words = ProcMask.words(n);
        int startWord = start >>> 6;
        long fromStart = -1L << (start & 63);
        for (int k = 0; k <= words; k++) {
            int w = startWord + k;
            if (w >= words) {
                w -= words;
            }
            long bits = idle.busyWord(w);
            if (k == 0) {
                bits &= fromStart;
            } else if (k == words) {
                bits &= ~fromStart; // the start word again: the bits below start
            }
            for (; bits != 0; bits &= bits - 1) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (i >= n) {
                    break; // made after our read of allocated
                }
                Processor victim = scheduling.allp[i];
                if (victim == p) {
                    continue;
                }
                if (victimSeen != null) {
                    victimSeen.accept(i);
                }
                if (victim.holder() == null) {
                    continue; // in transit to a carrier, or retaken: nothing to run it yet, its queue stays
                }
                Runnable task = stealFrom(m, p, victim, lastPass);
                if (task != null) {
                    return task;
                }
            }
        }
        return null;
    }

    /** Takes half of {@code victim}'s ring (its runnext on the last pass) into {@code p}; the task to run now, or null. */
    private Runnable stealFrom(Carrier m, Processor p, Processor victim, boolean lastPass) {
        int before = p.runQueue.size();
        Runnable task = p.runQueue.stealHalfFrom(victim.runQueue, lastPass, RUNNEXT_GRACE_NANOS);
        if (task != null) {
            int stolen = p.runQueue.size() - before + 1;
            p.count(Counter.STEALS);
            p.count(Counter.STOLEN_TASKS, stolen);
            if (Events.on()) {
                Events.steal(m, p, victim, stolen);
            }
        }
        return task;
    }
}
