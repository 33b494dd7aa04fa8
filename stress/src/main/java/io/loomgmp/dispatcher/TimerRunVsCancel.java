package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.util.concurrent.Future;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A due timer: a carrier takes it out of its P's heap and runs it, while another thread cancels
 * it (a virtual thread unparked just as its timeout fired). r1 = whether the task ran, r2 =
 * whether the cancel succeeded, r3 = what the heap still counts afterwards (pending timers, and
 * cancelled ones it holds): both must be 0 whichever side won. A cancel that comes while the task
 * runs succeeds without stopping it, as {@code FutureTask.cancel(false)} does; a timeout's task
 * (an unpark) tolerates that, as it does on the JDK's own timer threads.
 */
@JCStressTest
@Description("TimerHeap: running a due timer racing its cancellation")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "fired; the cancel came too late")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "cancelled; the carrier dropped it or its run did nothing")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "cancelled while running: as FutureTask's cancel(false), it returns true"
        + " until the task completes, and does not stop it (the JDK's own timeouts behave so)")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither ran nor was cancelled")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "the heap kept a count of a timer that is gone")
@State
public class TimerRunVsCancel {
    private final TimerHeap heap = new TimerHeap();
    private final Timer[] due = new Timer[1];
    private final Future<?> timer;
    private volatile int ran;
    private boolean cancelled;

    public TimerRunVsCancel() {
        timer = heap.add(() -> ran = 1, System.nanoTime() - 1); // already due
    }

    @Actor
    public void carrier() {
        if (heap.takeDue(System.nanoTime(), due, 1) == 1) {
            due[0].run();
        }
    }

    @Actor
    public void canceller() {
        cancelled = timer.cancel(false);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = ran;
        r.r2 = cancelled ? 1 : 0;
        heap.takeDue(System.nanoTime(), due, 1); // drops a cancelled timer the carrier missed
        r.r3 = heap.pending() + heap.size();
    }
}
