package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link HandOff} alone, on an inert scheduler: the test thread plays sysmon and the blocked
 * carrier; the carrier the P goes to parks on a thread of its own ({@link Hand}). The hand-off
 * itself, and the two ways it changes nothing. {@code HandoffTest} covers it end to end.
 */
class HandOffProtocolTest {

    /** A carrier parked on its own thread, and what its park returns. */
    private record Parked(Carrier carrier, CompletableFuture<Boolean> park) {
    }

    @Test
    void aBlockedCarriersPGoesToAParkedCarrierAndComesBackOnceIdle() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("handoff", 1, 2));
        Carrier blocked = Hand.holding(s, "blocked");
        Processor p0 = blocked.p;
        Parked spare = parkedSpare(s, blocked);
        p0.enterTask(blocked); // its task runs, and blocks

        assertSame(spare.carrier(), s.handOff.handOff(p0, blocked));
        assertTrue(Hand.result(spare.park(), "the spare's park"));
        assertSame(spare.carrier().inLoop, p0.holder(), "the spare holds the P");
        assertEquals(1, s.handOff.detached());
        assertEquals(1, s.handOff.handoffs.sum());
        assertTrue(blocked.detachedFromP);

        assertFalse(p0.leaveTask(blocked), "the task returns: its P is gone");
        Hand.giveUp(s, spare.carrier()); // the spare found nothing more: P0 is idle again
        assertTrue(s.handOff.regainP(blocked), "the old P, idle, is taken back");
        assertSame(blocked.inLoop, p0.holder());
        assertSame(p0, blocked.p);
        assertEquals(0, s.handOff.detached());
        assertFalse(blocked.detachedFromP);
    }

    @Test
    void withNoCarrierToBeHadNothingChanges() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("handoff-none", 1, 1));
        Carrier blocked = Hand.holding(s, "blocked");
        Processor p0 = blocked.p;
        s.lock.lock();
        try {
            s.parking.reserveCarrier(); // the one carrier maxCarriers allows: the blocked one
        } finally {
            s.lock.unlock();
        }
        p0.enterTask(blocked);
        assertNull(s.handOff.handOff(p0, blocked));
        assertSame(blocked.inTask, p0.holder(), "the blocked carrier keeps its P");
        assertEquals(0, s.handOff.detached());
        assertEquals(0, s.handOff.handoffs.sum());
    }

    @Test
    void aTaskThatReturnedFirstKeepsItsPAndTheSpareStaysParked() {
        Scheduling s = new Scheduling(SchedulerConfig.inert("handoff-late", 1, 2));
        Carrier m = Hand.holding(s, "m");
        Processor p0 = m.p;
        Parked spare = parkedSpare(s, m);
        p0.enterTask(m);
        assertTrue(p0.leaveTask(m), "the task returned before sysmon looked");

        assertNull(s.handOff.handOff(p0, m));
        assertSame(m.inLoop, p0.holder());
        assertEquals(0, s.handOff.detached());
        assertEquals(1, s.parking.idleCarriers(), "the reservation was given back: the spare is parked still");
        assertTrue(spare.carrier().parked);
        assertFalse(spare.park().isDone());

        Hand.giveUp(s, m); // clean up: the spare gets the P and its thread ends
        assertSame(spare.carrier(), Hand.wakeOne(s));
        assertTrue(Hand.result(spare.park(), "the spare's park"));
    }

    /** A second carrier, parked on its own thread, while {@code holder} keeps the only P. */
    private static Parked parkedSpare(Scheduling s, Carrier holder) {
        Carrier spare = new Carrier(s, "spare");
        CompletableFuture<Boolean> park = Hand.onItsOwnThread(spare, () -> s.parking.park(spare));
        Hand.awaitTrue(() -> s.parking.idleCarriers() == 1, "the spare parked");
        assertSame(holder.inLoop, s.allp[0].holder());
        return new Parked(spare, park);
    }
}
