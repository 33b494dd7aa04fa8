package example.soak;

/**
 * Computes for a given time without calling out: a CPU hog. Under the loom-gmp agent each loop
 * gets a preemption poll at its back-edge, so a virtual thread running this gives its carrier up
 * when sysmon asks (its time slice is over) instead of holding it to the end; on a platform
 * thread (a plain task on a carrier) the polls do nothing and it holds the carrier throughout.
 */
public final class CpuHog {
    private CpuHog() {
    }

    /** Computes for {@code nanos} of wall-clock time (more CPU than that only if never descheduled); returns a value to keep the work alive. */
    public static long compute(long nanos) {
        long end = System.nanoTime() + nanos;
        long x = nanos;
        while (System.nanoTime() - end < 0) {
            for (int i = 0; i < 1_000; i++) {
                x = x * 6364136223846793005L + 1442695040888963407L; // an LCG step: nothing to fold away
            }
        }
        return x;
    }
}
