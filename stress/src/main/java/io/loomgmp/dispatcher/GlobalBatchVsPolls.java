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
 * A full ring's overflow batch enters the global ready lane (one element, linked by one CAS), then
 * a yielded task enters the other lane, while a carrier takes two elements ({@code poll}: ready
 * first; the batch comes whole). r1, r2 = what it took ({@link StressTask#idOf}: a task's id, -100
 * for the batch, -1 for none), r3 = violations (every task exactly once, and the size hints back
 * at 0 once the queue is drained). Two actors, so that it runs on a 2-CPU machine.
 */
@JCStressTest
@Description("GlobalQueue: an overflow batch and a yield racing a carrier taking tasks")
@Outcome(id = "-?\\d+, -?\\d+, 0", expect = ACCEPTABLE, desc = "every task exactly once")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task lost or duplicated, or the size hint wrong")
@State
public class GlobalBatchVsPolls {
    private final StressTask[] tasks = StressTask.numbered(4);
    private final GlobalQueue global = new GlobalQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Object first;
    private Object second;

    @Actor
    public void producer() {
        global.putOverflow(new Runnable[] {tasks[0], tasks[1], tasks[2]}, 3);
        global.putYielded(tasks[3]);
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
