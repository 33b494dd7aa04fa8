package example.probes;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Run under the agent: 1,000 virtual threads wait at once for a class whose initialiser sleeps,
 * each pinning and blocking a carrier. Prints the most carriers seen ({@code mostCarriers}), how
 * many threads completed, and the carrier count once the keep-alive has passed
 * ({@code carriersAfterKeepAlive}, waiting up to 30 s for it to reach {@code procs}).
 */
public final class ManyPinnedProbe {
    static final int THREADS = 1_000;

    private ManyPinnedProbe() {
    }

    /** Its initialiser pins every virtual thread that touches the class until it is done. */
    static final class Gate {
        static final int OPEN;

        static {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            OPEN = 1;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        GmpScheduler scheduler = Gmp.scheduler().orElseThrow(() -> new IllegalStateException("run with the agent"));
        AtomicInteger mostCarriers = new AtomicInteger();
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread watcher = Thread.ofPlatform().start(() -> {
            while (watching.get()) {
                mostCarriers.accumulateAndGet(scheduler.snapshot().carriers(), Math::max);
                Thread.onSpinWait();
            }
        });
        AtomicInteger completed = new AtomicInteger();
        Thread[] threads = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            threads[i] = Thread.ofVirtual().start(() -> completed.addAndGet(Gate.OPEN));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        watching.set(false);
        watcher.join();
        System.out.println("mostCarriers=" + mostCarriers.get());
        System.out.println("completed=" + completed.get());
        System.out.println("handoffs=" + scheduler.snapshot().handoffs());

        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (scheduler.snapshot().carriers() > scheduler.procs() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        System.out.println("carriersAfterKeepAlive=" + scheduler.snapshot().carriers());
        System.out.println("procs=" + scheduler.procs());
    }
}
