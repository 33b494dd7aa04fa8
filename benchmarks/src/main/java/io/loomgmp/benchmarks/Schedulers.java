package io.loomgmp.benchmarks;

import io.loomgmp.bridge.Gmp;
import jdk.management.VirtualThreadSchedulerMXBean;

import java.lang.management.ManagementFactory;

/** Which scheduler this JVM runs virtual threads on, checked against the one a benchmark expects. */
final class Schedulers {
    static final String GMP = "gmp";
    static final String FJP = "fjp";

    private Schedulers() {
    }

    /**
     * @throws IllegalStateException if virtual threads in this JVM do not run on {@code expected}
     * @throws IllegalArgumentException if {@code expected} is neither {@code gmp} nor {@code fjp}
     */
    static void check(String expected) throws InterruptedException {
        boolean agent = Gmp.scheduler().isPresent();
        String carrier = carrierOfNewVirtualThread();
        switch (expected) {
            case GMP -> {
                if (!agent || !carrier.startsWith("gmp-M")) {
                    throw new IllegalStateException("scheduler=gmp, but this JVM runs virtual threads on " + carrier
                            + " (loom-gmp agent " + (agent ? "loaded" : "not loaded") + "): run gmp forks with"
                            + " -jvmArgsPrepend -javaagent:loom-bridge/target/loom-gmp-agent.jar, or use ./loomgmp bench");
                }
            }
            case FJP -> {
                if (agent || !carrier.startsWith("ForkJoinPool-")) {
                    throw new IllegalStateException("scheduler=fjp, but this JVM runs virtual threads on " + carrier
                            + (agent ? " (the loom-gmp agent is loaded)" : "") + ": run fjp forks without the agent");
                }
            }
            default -> throw new IllegalArgumentException("unknown scheduler \"" + expected + "\": expected gmp or fjp");
        }
    }

    /**
     * Checks the parameter {@code procs} ({@link OnSchedulerAtProcs}) against the scheduler this
     * JVM really runs virtual threads on: its parallelism, as the JDK's
     * {@code VirtualThreadSchedulerMXBean} reports it (the agent makes it report GMP's Ps), must be
     * {@code procs}, or the cores for {@code procs = 0}.
     *
     * @throws IllegalStateException if it is not: JMH cannot pass a parameter to the fork's JVM,
     *         so the fork must be started with the matching {@code -D} argument
     * @throws IllegalArgumentException if {@code procs} is negative
     */
    static void checkProcs(int procs) {
        if (procs < 0) {
            throw new IllegalArgumentException("procs=" + procs + ": expected 0 (the cores) or a number of Ps");
        }
        int cores = Runtime.getRuntime().availableProcessors();
        int expected = procs == 0 ? cores : procs;
        int actual = ManagementFactory.getPlatformMXBean(VirtualThreadSchedulerMXBean.class).getParallelism();
        if (actual != expected) {
            throw new IllegalStateException("procs=" + procs + (procs == 0 ? " (the " + cores + " cores)" : "")
                    + ", but this JVM's virtual-thread scheduler has parallelism " + actual + ": JMH cannot set a JVM"
                    + " argument from a parameter; start the fork with -jvmArgsPrepend -D" + OnSchedulerAtProcs.PARALLELISM_PROPERTY + "="
                    + expected + " (BenchRunner --procs does), or with -p procs=" + actual);
        }
    }

    /** The carrier's name: "gmp-M0" or "ForkJoinPool-1-worker-1". */
    static String carrierOfNewVirtualThread() throws InterruptedException {
        String[] text = new String[1];
        Thread.ofVirtual().start(() -> text[0] = Thread.currentThread().toString()).join();
        // A mounted virtual thread prints as "VirtualThread[#22]/runnable@<carrier name>".
        return text[0].substring(text[0].lastIndexOf('@') + 1);
    }
}
