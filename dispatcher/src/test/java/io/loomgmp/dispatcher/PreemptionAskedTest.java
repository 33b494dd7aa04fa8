package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;
import io.loomgmp.dispatcher.loom.PendingPreemptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A preemption poll's second step ({@link LoomSupport#preemptAsked}): while a request for one P is
 * open, the JVM-wide count is non-zero for every poll, but only the carrier holding that P is
 * told it was asked. Every other carrier's poll must stay on its call-free path: a call reached
 * there at every loop turn made the JIT spill the loop's values, and a saturated server paid
 * twice its CPU per request.
 */
class PreemptionAskedTest {

    @Test
    void onlyTheCarrierOfTheAskedPSeesTheRequest() throws Exception {
        // A time slice of a minute: sysmon asks nobody; the test asks P0 itself.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).timeSlice(Duration.ofSeconds(60)).name("asked").build()) {
            CountDownLatch bothRunning = new CountDownLatch(2);
            AtomicBoolean asked = new AtomicBoolean();
            Thread[] carriers = new Thread[2]; // each written before its countDown, read after the await
            boolean[][] sawAsked = new boolean[2][1];
            CountDownLatch done = new CountDownLatch(2);
            long until = System.nanoTime() + Probe.BOUND.toNanos();
            for (int i = 0; i < 2; i++) {
                int task = i;
                s.execute(() -> {
                    Thread carrier = Thread.currentThread(); // a dispatcher task runs on its carrier
                    carriers[task] = carrier;
                    bothRunning.countDown();
                    // Both spin, each on its own P, until the test has asked and both have looked.
                    while (!asked.get() && System.nanoTime() - until < 0) {
                        Thread.onSpinWait();
                    }
                    // The count is open: the poll's first step passes on both carriers.
                    if (LoomSupport.preemptPending()) {
                        sawAsked[task][0] = LoomSupport.preemptAsked(carrier);
                    }
                    done.countDown();
                    // The asked one takes its request, as its poll's slow path would.
                    while (LoomSupport.preemptAsked(carrier) && !LoomSupport.takePreemptRequest(carrier)) {
                        Thread.onSpinWait();
                    }
                });
            }
            Probe.await(bothRunning, Probe.BOUND, s, "two tasks, one on each P");
            Processor p0 = s.scheduling.allp[0];
            Lease held = p0.holder();
            // Sysmon may have asked already: a batch of both tasks went to one P, and the second
            // one's wait there makes sysmon ask the first to give way until another P steals it.
            boolean requested = held != null && (Preemption.request(p0, held) || p0.preemptRequested);
            asked.set(true); // before any assertion: the tasks must not spin on until the bound
            assertTrue(held != null, "P0 is not held\n" + s.snapshot());
            assertTrue(requested, "no request is open for P0\n" + s.snapshot());
            Probe.await(done, Probe.BOUND, s, "both tasks' looks at the open request");
            int askedTask = carriers[0] == held.carrier.thread ? 0 : 1;
            assertTrue(carriers[askedTask] == held.carrier.thread, "neither task ran on P0's carrier\n" + s.snapshot());
            assertTrue(sawAsked[askedTask][0], "the carrier of the asked P was not told\n" + s.snapshot());
            assertFalse(sawAsked[1 - askedTask][0], "the other carrier was told of a request for P0\n" + s.snapshot());
            assertFalse(LoomSupport.preemptAsked(Thread.currentThread()), "a thread that is no carrier was told");
            Probe.awaitTrue(() -> PendingPreemptions.count == 0, Probe.BOUND, s, "the request taken");
            assertEquals(0, PendingPreemptions.count);
        }
    }
}
