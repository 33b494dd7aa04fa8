package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static io.loomgmp.dispatcher.StressTask.idOf;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Out of memory: a full ring's overflow (3 tasks) and then a moved task go to the global queue's
 * reserve instead of its lanes (no node can be allocated), while a ready task already in the lane
 * waits, and a carrier takes two tasks ({@code poll}: the reserve first, then the ready lane).
 * r1, r2 = the tasks it took (-1: none), r3 = violations (every task exactly once, and the size
 * hints back at 0 and the queue empty once it is drained). Two actors, for a 2-CPU machine.
 */
@JCStressTest
@Description("GlobalQueue: puts into the reserve racing a carrier taking tasks")
@Outcome(id = "-?\\d+, -?\\d+, 0", expect = ACCEPTABLE, desc = "every task exactly once")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task lost or duplicated, or a size hint wrong")
@State
public class GlobalReserveVsPolls {
    private static final OutOfMemoryError NO_NODE = new OutOfMemoryError("no node (test)");
    private final StressTask[] tasks = StressTask.numbered(5);
    /** Set once the first task is in: from then on every node allocation fails. */
    private boolean outOfMemory;
    private final GlobalQueue global = new GlobalQueue(() -> {
        if (outOfMemory) {
            throw NO_NODE;
        }
    });
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Object first;
    private Object second;

    public GlobalReserveVsPolls() {
        global.putReady(tasks[4]); // linked normally, before memory runs out
        outOfMemory = true; // published with the state object, before the actors run
    }

    @Actor
    public void mover() {
        global.putOverflow(new Runnable[] {tasks[0], tasks[1], tasks[2]}, 3);
        global.putMoved(tasks[3]);
    }

    @Actor
    public void carrier() {
        first = global.poll();
        second = global.poll();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = idOf(first);
        r.r2 = idOf(second);
        tally.addElement(first);
        tally.addElement(second);
        tally.drain(global);
        int sizes = global.size() == 0 && global.readySize() == 0 && global.isEmpty() ? 0 : 4;
        r.r3 = tally.violations() | sizes;
    }
}
