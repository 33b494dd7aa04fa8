package io.loomgmp.soak;

import example.soak.CpuHog;
import io.loomgmp.bridge.GmpVirtualThreads;
import io.loomgmp.dispatcher.GmpScheduler;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks, before the soak starts, that this JVM can test what the soak claims to: the loom-gmp
 * agent is loaded, a virtual thread's timeout on a scheduler of the soak's own becomes one of
 * that scheduler's timers, and a CPU-bound virtual thread gives its carrier up at the agent's
 * preemption polls. Without these the soak would pass while testing far less (the JDK's timer
 * threads instead of GMP timers, hogs that are never preempted), so each is a refusal with the
 * reason, not a warning. Takes about a second, on a one-P scheduler of its own.
 */
final class Preflight {
    /** What the hog computes for; the probe must run well before it ends. */
    private static final Duration HOG = Duration.ofSeconds(1);
    private static final Duration BOUND = Duration.ofSeconds(30);

    private Preflight() {
    }

    /** Why this JVM cannot run the soak, or null if it can. */
    static String problem() {
        try {
            Class.forName("io.loomgmp.bridge.Gmp");
        } catch (ClassNotFoundException e) {
            return "the loom-gmp agent is not loaded (io.loomgmp.bridge.Gmp is not on the class path): run ./loomgmp soak,"
                    + " or java -javaagent:loom-bridge/target/loom-gmp-agent.jar -jar soak/target/loom-gmp-soak.jar";
        }
        if (io.loomgmp.bridge.Gmp.scheduler().isEmpty()) {
            return "the loom-gmp agent is not loaded: run ./loomgmp soak,"
                    + " or java -javaagent:loom-bridge/target/loom-gmp-agent.jar -jar soak/target/loom-gmp-soak.jar";
        }
        GmpScheduler probe = GmpScheduler.builder().procs(1).name("soak-preflight").timeSlice(Duration.ofMillis(2)).build();
        try {
            String timers = timersProblem(probe);
            return timers != null ? timers : preemptionProblem(probe);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } finally {
            probe.close();
        }
    }

    private static String timersProblem(GmpScheduler probe) throws InterruptedException {
        long before = probe.snapshot().timersFired();
        Thread sleeper = GmpVirtualThreads.builder(probe).start(() -> {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!sleeper.join(BOUND)) {
            return "a virtual thread's 10 ms sleep did not end within " + BOUND + "\n" + probe.snapshot();
        }
        if (probe.snapshot().timersFired() == before) {
            return "a virtual thread's sleep was not a timer of its GMP scheduler: the agent's timers are off"
                    + " (timers=false, or -Dgmp.timers=false?), so the soak would test the JDK's timer threads instead";
        }
        return null;
    }

    private static String preemptionProblem(GmpScheduler probe) throws InterruptedException {
        CountDownLatch computing = new CountDownLatch(1);
        AtomicLong hogEnded = new AtomicLong();
        Thread hog = GmpVirtualThreads.builder(probe).start(() -> {
            computing.countDown();
            CpuHog.compute(HOG.toNanos());
            hogEnded.set(System.nanoTime());
        });
        if (!computing.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
            return "a virtual thread did not start within " + BOUND + "\n" + probe.snapshot();
        }
        AtomicLong probeRan = new AtomicLong();
        probe.execute(() -> probeRan.set(System.nanoTime())); // from outside: the global queue of the one P
        if (!hog.join(BOUND)) {
            return "a " + HOG + " CPU hog did not end within " + BOUND + "\n" + probe.snapshot();
        }
        long deadline = System.nanoTime() + BOUND.toNanos();
        while (probeRan.get() == 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        if (probeRan.get() == 0 || probeRan.get() - hogEnded.get() > 0) {
            return "a CPU-bound virtual thread kept its carrier for " + HOG + " while a task waited: the agent's preemption"
                    + " polls are off (preempt=false, or example.soak excluded by preempt.include/exclude?), so the soak's hogs would never be preempted";
        }
        return null;
    }
}
