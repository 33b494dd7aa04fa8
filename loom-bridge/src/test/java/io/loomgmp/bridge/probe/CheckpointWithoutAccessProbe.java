package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.loom.LoomSupport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Run without the agent and without JVM flags, so loom-gmp cannot see carriers: a task spinning
 * on a one-P scheduler gets a preemption request from sysmon, which sends every poll down its
 * slow path; then Gmp.checkpoint() is called from a virtual thread and from a platform thread.
 * Prints whether a request was open and what the polls threw.
 */
public final class CheckpointWithoutAccessProbe {
    public static void main(String[] args) throws Exception {
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).timeSlice(Duration.ofMillis(1)).build()) {
            AtomicBoolean stop = new AtomicBoolean();
            scheduler.execute(() -> {
                while (!stop.get()) {
                    Thread.onSpinWait(); // holds the only P past its time slice: sysmon asks it to yield
                }
            });
            scheduler.execute(() -> { }); // waits behind it: what sysmon asks it to yield for
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!LoomSupport.preemptPending() && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            System.out.println("pending=" + LoomSupport.preemptPending());

            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Runnable polls = () -> {
                try {
                    for (int i = 0; i < 1_000; i++) {
                        Gmp.checkpoint();
                    }
                } catch (Throwable e) {
                    thrown.compareAndSet(null, e);
                }
            };
            Thread.ofVirtual().start(polls).join();
            polls.run();
            System.out.println("thrown=" + (thrown.get() == null ? "nothing" : thrown.get()));
            System.out.println("pendingAfter=" + LoomSupport.preemptPending());
            stop.set(true);
        }
    }
}
