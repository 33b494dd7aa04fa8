package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Sysmon asks the task it saw running on P for too long to give the P up, while the carrier,
 * whose task has returned meanwhile and which found nothing else to run, gives the P up. Real
 * {@code Processor}, {@code Lease}s of a real {@code Carrier}, and {@code Preemption}.
 *
 * <h2>Protocol</h2>
 * Sysmon ({@code Preemption.request(p, seen)}, {@code seen} = the lease it read, {@code m.inTask}):
 * sets the request (a volatile CAS), then re-reads the holder and withdraws the request if the P
 * left that carrier:
 * <pre>
 *     if (!REQUESTED.compareAndSet(p, false, true)) return false;
 *     PENDING.getAndAdd(1);
 *     Lease now = p.holder();
 *     if (now == null || now.carrier != seen.carrier) { take(p); return false; }
 *     return true;
 * </pre>
 * The carrier ({@code Idle.putP}, quoted: its first two lines; the rest only moves the P onto the
 * idle list under the scheduler lock) writes the holder (volatile), then takes any request:
 * <pre>
 *     p.release(); // holder = null
 *     Preemption.take(p);
 * </pre>
 * ({@code take}: {@code p.preemptRequested && REQUESTED.compareAndSet(p, true, false)}.)
 *
 * <h2>Invariant</h2>
 * Once both are done the idle P has no open request ({@code p.preemptRequested == false},
 * checked in the arbiter; {@code Preemption.pending} is a JVM-wide counter shared with every
 * other instance of this test, so it is not checked). A request left open would keep every
 * preemption poll in the JVM on its slow path until the P is used again. Either the carrier's
 * take sees the request (sysmon's CAS came before the carrier's read), or sysmon's re-read sees
 * {@code null} (the carrier's write came before it): sequential consistency of the four volatile
 * accesses forbids both missing. r1 = {@code request} returned true (the request stood when
 * sysmon left), r2 = the carrier's {@code take} took it, r3 = the request is still open.
 * Forbidden: any {@code r3 = 1}, and {@code 1, 0, *}: a request that stood while the carrier's
 * take missed it. With the carrier's two steps swapped (take, then write the holder), sysmon can
 * set its request between the two and still see its carrier: {@code 1, 0, 1}.
 */
@JCStressTest
@Description("Preemption: sysmon's request (CAS, then re-read the holder) racing the carrier giving its P up (holder = null, then take)")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "requested while the carrier held the P: the carrier took the request")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "sysmon saw the P gone, but the carrier took the request first")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "sysmon saw the P gone and withdrew its request")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "a request left open on an idle P")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a request that stood, missed by the carrier")
@State
public class PreemptRequestVsIdle {
    private final Carrier m = new Carrier(null, "m");
    private final Processor p = new Processor(0);
    private final Lease seen = m.inTask; // sysmon saw m running a task on p for too long

    public PreemptRequestVsIdle() {
        p.acquire(m); // the task returned (leaveTask); m found nothing else to run
    }

    @Actor
    public void sysmon(III_Result r) {
        r.r1 = Preemption.request(p, seen) ? 1 : 0;
    }

    @Actor
    public void carrier(III_Result r) {
        p.release();
        r.r2 = Preemption.take(p) ? 1 : 0;
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = p.preemptRequested ? 1 : 0;
    }
}
