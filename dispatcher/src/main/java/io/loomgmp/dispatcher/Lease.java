package io.loomgmp.dispatcher;

/**
 * Who holds a P and in which phase: the value of {@link Processor#holder}. It makes "a P is never
 * held by two carriers at once" checkable while sysmon can take a P from a carrier whose task
 * blocks (Go's {@code _Prunning} / {@code _Psyscall} and sysmon's {@code retake}).
 *
 * <pre>
 *  holder     meaning                                  who may change it, to what
 *  null       idle (on the idle list), or in transit:  the lock holder that takes it off the idle list, or
 *             to a carrier (Carrier.nextP, a carrier   the carrier it was handed to: to m.inLoop
 *             being started) or being given back       (Processor.acquire, which asserts the null)
 *  m.inLoop   carrier m holds the P in its loop        m: to m.inTask (enterTask, a release store);
 *                                                      m, under the lock: to null (Processor.release, from Idle.putP)
 *  m.inTask   m holds the P and is running a task      m: CAS to m.busy (beginOwnerOp) or to m.inLoop (leaveTask);
 *                                                      sysmon: CAS to RETAKEN (retake)
 *  m.busy     m's running task is using the P's queue  m: to m.inTask (endOwnerOp, a release store)
 *  RETAKEN    sysmon took the P from a blocked m       sysmon, under the lock: to null (Processor.release, in HandOff.handOff)
 * </pre>
 * Every carrier has its own three lease objects, so a CAS that expects {@code m.inTask} can only
 * succeed against m's own lease: a P that sysmon took and handed to another carrier never matches
 * a stale expectation (no ABA). The only race on a P's holder is between m and sysmon while m runs
 * a task, and both sides use CAS there; everything a holder does to the P's run queue as its owner
 * happens while the holder is {@code m.inLoop} or {@code m.busy}, which sysmon never takes.
 * So at any moment at most one carrier may act as the P's owner.
 */
final class Lease {
    /** The P was taken from its carrier by sysmon and is being handed to another one. */
    static final Lease RETAKEN = new Lease(null, "retaken");

    final Carrier carrier;
    private final String phase;

    Lease(Carrier carrier, String phase) {
        this.carrier = carrier;
        this.phase = phase;
    }

    @Override
    public String toString() {
        return carrier == null ? phase : carrier.name + ":" + phase;
    }
}
