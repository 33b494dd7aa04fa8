package io.loomgmp.benchmarks;

import io.loomgmp.bridge.Gmp;

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

    /** The carrier's name: "gmp-M0" or "ForkJoinPool-1-worker-1". */
    static String carrierOfNewVirtualThread() throws InterruptedException {
        String[] text = new String[1];
        Thread.ofVirtual().start(() -> text[0] = Thread.currentThread().toString()).join();
        // A mounted virtual thread prints as "VirtualThread[#22]/runnable@<carrier name>".
        return text[0].substring(text[0].lastIndexOf('@') + 1);
    }
}
