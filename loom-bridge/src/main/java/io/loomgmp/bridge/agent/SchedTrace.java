package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.io.PrintStream;

/**
 * {@code -Dgmp.schedtrace=MS}: prints Go's {@code GODEBUG=schedtrace} line for the scheduler
 * every MS milliseconds, from a daemon platform thread, followed by the scheduling latency of the
 * tasks sampled since the previous line (its median and 99th percentile), e.g.
 * {@code SCHED 1003ms: gomaxprocs=2 idleprocs=2 threads=4 spinningthreads=0 idlethreads=2 runqueue=0 [0 0] latp50=12us latp99=3.1ms}.
 * The time is counted from the agent's start, which is within milliseconds of the JVM's.
 */
final class SchedTrace implements Runnable {
    private final GmpScheduler scheduler;
    private final long periodMillis;
    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    private SchedTrace(GmpScheduler scheduler, long periodMillis, PrintStream out) {
        this.scheduler = scheduler;
        this.periodMillis = periodMillis;
        this.out = out;
    }

    static void start(GmpScheduler scheduler, long periodMillis, PrintStream out) {
        Thread thread = new Thread(new SchedTrace(scheduler, periodMillis, out), scheduler.name() + "-schedtrace");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        long next = startNanos;
        SchedulerSnapshot previous = null;
        while (true) {
            next += periodMillis * 1_000_000L;
            long sleep = next - System.nanoTime();
            try {
                if (sleep > 0) {
                    Thread.sleep(sleep / 1_000_000L, (int) (sleep % 1_000_000L));
                }
            } catch (InterruptedException e) {
                return;
            }
            long elapsedMillis = (System.nanoTime() - startNanos) / 1_000_000L;
            SchedulerSnapshot snapshot = scheduler.snapshot();
            out.println(snapshot.schedtraceLine(elapsedMillis, previous));
            previous = snapshot;
        }
    }
}
