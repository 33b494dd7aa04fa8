package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import java.time.Duration;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A spare carrier (one beyond {@code procs}) parked on the idle list whose keep-alive ran out
 * retires, racing a waker that reserves that carrier and hands it a P. Both sides use the real
 * code on a real {@code Scheduling}, {@code Idle} and {@code Carriers}.
 *
 * <h2>Protocol</h2>
 * The carrier, in {@code Parking.takeNextP}, leaves the idle list under the scheduler lock, and
 * only if nobody handed it a P:
 * <pre>
 *     scheduling.lock.lock();
 *     try {
 *         if (m.nextP == null &amp;&amp; retire(m)) { m.retired = true; return null; }
 *     } finally { scheduling.lock.unlock(); }
 * </pre>
 * ({@code Parking.retire}: {@code carriers > procs && idleMs.remove(m)}, then one carrier fewer).
 * The waker ({@code Idle.wakeP}'s slow path, as {@code HandOff.handOff} does too) takes an idle
 * P and reserves a carrier under the same lock ({@code Parking.reserveCarrier}: a parked one, taken
 * off the idle list, else a new one, counted), then, without the lock, hands the P over
 * ({@code Parking.handTo}: {@code m.nextP = p}, a volatile write, then unpark). If the carrier lost
 * the race for the lock, it is no longer on the idle list, so {@code retire} fails and it waits
 * on in {@code takeNextP} for {@code nextP}; if it won, the waker does not find it and reserves a
 * new carrier instead.
 *
 * <h2>Invariant</h2>
 * Either the carrier took the P ({@code r1 = 1}, and the waker reserved it: {@code r2 = 1}), or
 * the carrier retired and the waker reserved a new carrier ({@code r1 = 0, r2 = 2}). Forbidden:
 * {@code 0, 1}, a P handed to a carrier that ended (the P would be lost, neither idle nor run),
 * and {@code 1, 2}, a P taken that nobody handed; and any r3 other than 0 (violations: 1 the P
 * taken is not the one handed, 2 {@code m.retired} disagrees with the outcome, 4 the carrier
 * count is not 2 afterwards (the busy one, plus the spare or its new replacement), 8 a carrier or
 * a P left on an idle list, 16 {@code nextP} left set).
 *
 * <h2>Set-up</h2>
 * A real {@code Scheduling} with one P, at most two carriers and a keep-alive of zero, sysmon off
 * (its thread is never started) and taken out of the JFR periodic event at once. Two carriers are
 * counted ({@code reserveCarrier} twice: one stands for a carrier busy elsewhere, e.g. in a task
 * whose P was handed off), so the spare may retire; the spare {@code m} is on the idle list and
 * P0 is idle. The carrier actor calls the real {@code Parking.takeNextP(m)}: with the keep-alive
 * at zero it goes straight to the retire step (it never parks: more carriers than Ps, and no
 * timers). The waker calls the real {@code getP}, {@code reserveCarrier} and, for a parked
 * carrier, {@code handTo} ({@code m} has no thread: the unpark is a no-op); a new carrier is only
 * recorded, not started, as {@code handTo} would start a thread.
 */
@JCStressTest
@Description("Carriers/Idle: a spare carrier retiring after its keep-alive racing a waker reserving it and handing it a P")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the waker reserved the spare first: it takes the P instead of retiring")
@Outcome(id = "0, 2, 0", expect = ACCEPTABLE, desc = "the spare retired first: the waker reserved a new carrier")
@Outcome(id = "0, 1, .*", expect = FORBIDDEN, desc = "a P handed to a carrier that ended: the P is lost")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a P taken that nobody handed, or the lists and counts left wrong")
@State
public class RetireVsHandOver {
    private final Scheduling s = new Scheduling(SchedulerConfig.inert("retire-jcstress", 1, 2).withKeepAlive(Duration.ZERO));
    private final Carrier m = new Carrier(s, "spare");
    private Processor handed;
    private int reservation;
    private Processor took;

    public RetireVsHandOver() {
        s.lock.lock();
        try {
            s.parking.reserveCarrier(); // a carrier busy elsewhere
            s.parking.reserveCarrier(); // the spare, m
            s.parking.putCarrier(m);
        } finally {
            s.lock.unlock();
        }
    }

    @Actor
    public void spare() {
        took = s.parking.takeNextP(m);
    }

    @Actor
    public void waker() {
        Parking.Reservation reserved;
        Processor p;
        s.lock.lock();
        try {
            p = s.idle.getP();
            reserved = s.parking.reserveCarrier();
        } finally {
            s.lock.unlock();
        }
        handed = p;
        if (reserved == null) {
            reservation = 0;
        } else if (reserved.parked() != null) {
            reservation = reserved.parked() == m ? 1 : 3;
            s.parking.handTo(reserved, p, false);
        } else {
            reservation = 2; // handTo would start a new carrier thread with p
        }
    }

    @Arbiter
    public void check(III_Result r) {
        int violations = 0;
        if (took != null && took != handed) {
            violations |= 1;
        }
        if (m.retired != (took == null)) {
            violations |= 2;
        }
        if (s.parking.carriers() != 2) {
            violations |= 4;
        }
        if (s.parking.idleCarriers() != 0 || s.idle.idleProcs() != 0) {
            violations |= 8;
        }
        if (m.nextP != null) {
            violations |= 16;
        }
        r.r1 = took != null ? 1 : 0;
        r.r2 = reservation;
        r.r3 = violations;
    }
}
