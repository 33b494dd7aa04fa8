package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;


import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The spinning half of the wake-up protocol ({@code Idle}, "The wake-up rule"), on the real
 * {@code Scheduling}, {@code Idle}, {@code GlobalQueue} and {@code RunQueue}s.
 *
 * <h2>Protocol</h2>
 * A submitter queues a task, <em>then</em> calls {@code Idle.wakeP}, which reads the spinning
 * count and then the idle P count, and wakes nobody if a carrier is spinning or no P is idle:
 * <pre>
 *     if (spinning.get() != 0 || idleProcs == 0) {
 *         return;
 *     }
 * </pre>
 * A spinner that found nothing gives its P up ({@code RunLoop.findRunnable} step 8:
 * {@code release(m)}, i.e. {@code idle.putP(p)} under the scheduler lock, a volatile write of the
 * idle count), <em>then</em> decrements the spinning count, <em>then</em> re-checks every queue
 * (step 9, {@code Parking.spinnerRecheck}):
 * <pre>
 *     m.spinning = false;
 *     spinning.decrementAndGet();
 *     ...
 *     boolean work = !scheduling.global.isEmpty() || idle.anyBusyQueued(null, false)
 *             || scheduling.timers.anyDue(System.nanoTime());
 * </pre>
 * and takes an idle P back if it finds work. {@code anyBusyQueued} reads the queues of the busy
 * Ps only: the Ps whose bit is set in {@code Idle}'s busy mask (a volatile read of each word), set
 * under the lock in {@code getP} before the P is handed to a carrier, so before any task can be
 * pushed to its ring. P1's bit is set here (the set-up took it with {@code getP}), P0's cleared
 * by the spinner's {@code putP}.
 *
 * <h2>Invariant</h2>
 * Once both are done, the idle P is not left idle while the task waits: either the spinner's
 * re-check found the task and took a P back ({@code r1 = 1}), or the submitter saw the spinner
 * gone and the idle P and handed that P to a parked carrier ({@code r2 = 1}); not both (one P was
 * idle). Either way exactly one carrier is spinning afterwards ({@code r3 = 1}) and no P is idle
 * ({@code r4 = 0}). Forbidden: {@code 0, 0, 0, 1}, the lost wake-up: the re-check missed the task
 * and the submitter saw {@code spinning != 0}, so the task waits while a P sits idle and nobody
 * searches. With the two steps of either side swapped (re-check before the decrement, or read
 * before the put) that outcome becomes reachable (the spinner's swapped: observed in quick mode,
 * a few thousand times in 4.7 million). In order, it is forbidden when every access is
 * sequentially consistent: {@link Global}, where the put links its node by a volatile CAS, then
 * the RMW on {@code spinning}, then volatile reads; and {@link LocalRing}, where the push to a
 * ring ends in release stores and the submitter fences before it reads. Everything else (a P
 * given twice, a wrong count) is forbidden in both.
 *
 * <p>Only step 9 is exercised: for a task on the global queue, the park of step 10
 * ({@code Parking.park}) re-checks the global queue once more ({@code GlobalPutVsIdleRecheck}),
 * but a task in a busy P's ring has no second chance: the re-check here is the only thing that
 * keeps an idle P from sitting beside it until that P's holder finishes its task.
 *
 * <h2>Set-up</h2>
 * A real {@code Scheduling} with two Ps, built with sysmon off (its thread is never started; no
 * carrier thread is ever started either) and taken out of the JFR periodic event at once. Carrier
 * {@code spinner} holds P0 and is counted spinning ({@code Idle.startSpinning}); carrier
 * {@code busy} holds P1; carrier {@code parked} is on the idle carrier list, so that
 * {@code wakeP} reserves it and hands it the P ({@code Parking.handTo}: {@code m.nextP = p}, an
 * unpark of a null thread is a no-op) instead of starting a thread. r1 = the spinner's re-check
 * took a P back, r2 = the parked carrier was handed a P, r3 = the spinning count, r4 = the idle
 * P count.
 */
public final class WakePVsSpinnerRelease {
    private WakePVsSpinnerRelease() {
    }

    /** Two Ps, a spinner on P0, a busy carrier on P1, a parked carrier; spinning count 1. */
    static final class World {
        final Scheduling s = new Scheduling(SchedulerConfig.inert("wakep-jcstress", 2, 4)); // never started
        final Carrier spinner = new Carrier(s, "spinner");
        final Carrier busy = new Carrier(s, "busy");
        final Carrier parked = new Carrier(s, "parked");
        final StressTask task = new StressTask(0);
        Processor found;

        World() {
            s.lock.lock();
            try {
                s.idle.getP().acquire(spinner); // P0
                s.idle.getP().acquire(busy); // P1
                s.parking.putCarrier(parked);
            } finally {
                s.lock.unlock();
            }
            s.idle.startSpinning(spinner, spinner.p);
        }

        /** RunLoop.findRunnable, steps 8 and 9, for a spinner that found nothing. */
        void spinnerGivesUp() {
            s.lock.lock();
            try { // step 8: release(m)
                Processor p = spinner.p;
                spinner.p = null;
                s.idle.putP(p);
            } finally {
                s.lock.unlock();
            }
            found = s.parking.spinnerRecheck(spinner); // step 9
        }

        void check(IIII_Result r) {
            r.r1 = found != null ? 1 : 0;
            r.r2 = parked.nextP != null ? 1 : 0;
            r.r3 = s.idle.spinning();
            r.r4 = s.idle.idleProcs();
        }
    }

    /** The submitter is not a carrier: the real {@code Scheduling.submit}, to the global ready lane. */
    @JCStressTest
    @Description("Idle: wakeP after a global put racing a spinner giving up its P, then re-checking the queues")
    @Outcome(id = "1, 0, 1, 0", expect = ACCEPTABLE, desc = "the spinner's re-check saw the task and took a P back")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "the submitter saw nobody spinning and an idle P: it woke the parked carrier")
    @Outcome(id = "0, 0, 0, 1", expect = FORBIDDEN, desc = "lost wake-up: the re-check missed the task and the submitter saw a spinner")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "a P given twice, or a wrong count")
    @State
    public static class Global {
        private final World w = new World();

        @Actor
        public void submitter() {
            w.s.submit(w.task, Placement.GLOBAL); // global.putReady, then idle.wakeP
        }

        @Actor
        public void spinner() {
            w.spinnerGivesUp();
        }

        @Arbiter
        public void check(IIII_Result r) {
            w.check(r);
        }
    }

    /**
     * The submitter is a task running on {@code busy}, which holds P1: {@code Scheduling.submit}'s
     * owner-operation path (it cannot be called here: it finds its carrier through the table of
     * started carriers), quoted:
     * <pre>
     *     if (... !(inLoop || p.beginOwnerOp(m))) { ... } else {
     *         try { ... Object[] overflow = p.runQueue.pushOrOverflow(task); ... }
     *         finally { if (!inLoop) { p.endOwnerOp(m); } }
     *     }
     *     ...
     *     wakeAfterQueueing(local); // called here: a full fence, then idle.wakeP()
     * </pre>
     *
     * <p>The ring publishes the task with a release store of its tail
     * ({@code RunQueue.pushOrOverflow}: {@code TAIL.setRelease}), followed by another release
     * store ({@code endOwnerOp}); the JMM lets a later volatile read move ahead of both, and x86's
     * store buffer does it. Without the full fence in {@code Scheduling.wakeAfterQueueing} the
     * submitter read the spinner still spinning while the spinner's decrement and re-check ran
     * before the tail store was visible: both missed (observed on x86, tough mode, about 1 in
     * 10<sup>6</sup>), and P0 sat idle beside the task until P1's holder finished its task.
     */
    @JCStressTest
    @Description("Idle: wakeP after a push to a busy P's ring racing a spinner giving up its P, then re-checking the queues")
    @Outcome(id = "1, 0, 1, 0", expect = ACCEPTABLE, desc = "the spinner's re-check saw the task and took a P back")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "the submitter saw nobody spinning and an idle P: it woke the parked carrier")
    @Outcome(id = "0, 0, 0, 1", expect = FORBIDDEN, desc = "lost wake-up: the re-check missed the task and the submitter saw a spinner")
    @Outcome(id = ".*", expect = FORBIDDEN, desc = "a P given twice, or a wrong count")
    @State
    public static class LocalRing {
        private final World w = new World();

        public LocalRing() {
            w.busy.p.enterTask(w.busy); // busy runs the submitting task
        }

        @Actor
        public void submitter() {
            Processor p = w.busy.p;
            if (p.beginOwnerOp(w.busy)) {
                try {
                    p.runQueue.pushOrOverflow(w.task);
                } finally {
                    p.endOwnerOp(w.busy);
                }
            }
            w.s.wakeAfterQueueing(true);
        }

        @Actor
        public void spinner() {
            w.spinnerGivesUp();
        }

        @Arbiter
        public void check(IIII_Result r) {
            w.check(r);
        }
    }
}
