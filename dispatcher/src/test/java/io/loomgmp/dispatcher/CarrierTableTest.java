package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The carrier table's perfect hash: every registered carrier's thread finds its carrier in one
 * probe, any other thread finds none, through growth and removal, up to more carriers than the
 * JDK's default {@code maxPoolSize}.
 */
class CarrierTableTest {
    @Test
    void everyCarrierIsFoundAndNoOtherThreadIs() {
        List<Carrier> carriers = new ArrayList<>();
        List<Thread> strangers = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) {
                Carrier m = new Carrier(null, "table-m" + i);
                m.thread = Thread.ofPlatform().unstarted(() -> { });
                strangers.add(Thread.ofPlatform().unstarted(() -> { })); // ids interleaved with the carriers'
                CarrierTable.register(m);
                carriers.add(m);
                check(carriers, strangers);
            }
            for (int i = 0; i < carriers.size(); i += 2) {
                CarrierTable.unregister(carriers.get(i));
                strangers.add(carriers.get(i).thread);
            }
            carriers.removeIf(m -> strangers.contains(m.thread));
            check(carriers, strangers);
        } finally {
            for (Carrier m : carriers) {
                CarrierTable.unregister(m);
            }
        }
        assertNull(CarrierTable.of(null));
        assertNull(CarrierTable.of(Thread.currentThread()));
    }

    private static void check(List<Carrier> carriers, List<Thread> strangers) {
        for (Carrier m : carriers) {
            assertSame(m, CarrierTable.of(m.thread), m.thread + " does not find its carrier");
        }
        for (Thread t : strangers) {
            assertNull(CarrierTable.of(t), t + " finds a carrier it is not");
        }
    }
}
