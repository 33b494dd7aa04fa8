package io.loomgmp.bridge.probe;

import java.util.concurrent.locks.LockSupport;

/**
 * For a debugger to look at: {@link #COUNT} virtual threads named {@code yielding-<i>} that mount
 * and unmount all the time (a {@code Thread.yield()} every 256 rounds of a loop), and, once they
 * have started, a platform thread named {@link #READY}. Exits after {@code args[0]} seconds, so
 * that a test that fails to end it leaves nothing running.
 */
public final class YieldingVirtualThreadsProbe {
    public static final int COUNT = 4;
    public static final String PREFIX = "yielding-";
    public static final String READY = "probe-ready";

    private static volatile long sink;

    private YieldingVirtualThreadsProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        for (int i = 0; i < COUNT; i++) {
            Thread.ofVirtual().name(PREFIX + i).start(() -> {
                for (long n = 1; ; n++) {
                    if ((n & 255) == 0) {
                        Thread.yield();
                    }
                    sink = n;
                }
            });
        }
        Thread.ofPlatform().name(READY).daemon().start(() -> LockSupport.parkNanos(Long.MAX_VALUE));
        Thread.sleep(Long.parseLong(args[0]) * 1000);
        System.exit(0);
    }
}
