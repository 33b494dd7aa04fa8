package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link ProcMask}: two Ps of one word change their bits at once, under different locks (the
 * timer mask: each heap keeps its P's bit under its own lock). P3's heap empties (clear) while
 * P5's gets its first timer (set). Each change is a volatile read-modify-write of the whole word,
 * so neither is lost: a plain read, then a write, would let one overwrite the other, leaving P5
 * without its bit (its timers never looked at) or P3 with a stale one. r1 = P3's bit, r2 = P5's,
 * read after both.
 */
@JCStressTest
@Description("ProcMask: a clear and a set of two bits of one word, at once")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "both changes kept")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a change lost")
@State
public class ProcMaskSetVsClear {
    private final ProcMask mask = new ProcMask(64);

    public ProcMaskSetVsClear() {
        mask.set(3);
    }

    @Actor
    public void clearer() {
        mask.clear(3);
    }

    @Actor
    public void setter() {
        mask.set(5);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r1 = mask.contains(3) ? 1 : 0;
        r.r2 = mask.contains(5) ? 1 : 0;
    }
}
