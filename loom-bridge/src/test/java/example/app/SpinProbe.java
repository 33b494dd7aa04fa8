package example.app;

/**
 * Run under the agent with one P and one carrier: a virtual thread spins until a second virtual
 * thread, queued behind it, sets a flag. Nothing in the spin loop can park or yield, and with one
 * carrier sysmon cannot hand the P to another carrier, so the second thread runs before the spin
 * gives up only if the loop yields at the preemption poll the agent inserted at its back-edge
 * (taken once sysmon asks, after a time slice). Prints {@code passedWhileSpinning=true|false} and
 * {@code spinMillis}. In an application's package: the agent never instruments {@code io.loomgmp}.
 */
public final class SpinProbe {
    /** How long the spin lasts when nothing makes it yield. */
    public static final long SPIN_BOUND_MILLIS = 1_000;

    private static volatile boolean spinning;
    private static volatile boolean passed;

    public static void main(String[] args) throws InterruptedException {
        boolean[] passedWhileSpinning = new boolean[1];
        long[] spinMillis = new long[1];
        Thread spinner = Thread.ofVirtual().start(() -> {
            long start = System.nanoTime();
            spinning = true;
            while (!passed && System.nanoTime() - start < SPIN_BOUND_MILLIS * 1_000_000) {
                // CPU-bound: the only way out before the bound is a yield at the loop's back-edge
            }
            passedWhileSpinning[0] = passed;
            spinMillis[0] = (System.nanoTime() - start) / 1_000_000;
        });
        while (!spinning) {
            Thread.onSpinWait();
        }
        Thread.ofVirtual().start(() -> passed = true).join();
        spinner.join();
        System.out.println("passedWhileSpinning=" + passedWhileSpinning[0]);
        System.out.println("spinMillis=" + spinMillis[0]);
    }
}
