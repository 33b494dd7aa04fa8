package example.probes;

/**
 * A class whose initialiser sleeps: a virtual thread that runs it, and every virtual thread that
 * waits for it, is pinned to its carrier (class initialisation cannot unmount) and blocked.
 */
final class SlowInit {
    static final long VALUE;

    static {
        try {
            Thread.sleep(PinnedProbe.BLOCK_MILLIS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        VALUE = 42;
    }

    private SlowInit() {
    }
}
