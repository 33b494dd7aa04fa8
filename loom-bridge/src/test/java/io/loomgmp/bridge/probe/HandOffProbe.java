package io.loomgmp.bridge.probe;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.util.concurrent.locks.LockSupport;

/**
 * Run under the agent: a park/unpark ping-pong between two virtual threads, then one virtual
 * thread calling Thread.yield in a loop; prints the scheduler's counter deltas for each.
 */
public final class HandOffProbe {
    public static final int ROUND_TRIPS = 10_000;
    public static final int YIELDS = 10_000;

    private static volatile int turn; // 0: ping's turn, 1: pong's

    public static void main(String[] args) throws Exception {
        GmpScheduler scheduler = Gmp.scheduler().orElseThrow(() -> new IllegalStateException("no agent"));

        SchedulerSnapshot before = scheduler.snapshot();
        Thread[] pair = new Thread[2];
        pair[0] = Thread.ofVirtual().unstarted(() -> play(0, pair));
        pair[1] = Thread.ofVirtual().unstarted(() -> play(1, pair));
        pair[0].start();
        pair[1].start();
        pair[0].join();
        pair[1].join();
        SchedulerSnapshot after = scheduler.snapshot();
        System.out.println("pingpongRunnextHits=" + (after.runnextHits() - before.runnextHits()));
        System.out.println("pingpongTasksRun=" + (after.tasksRun() - before.tasksRun()));

        before = scheduler.snapshot();
        Thread yielder = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < YIELDS; i++) {
                Thread.yield();
            }
        });
        yielder.join();
        after = scheduler.snapshot();
        System.out.println("yieldQueuePops=" + (after.globalGrabs() + after.fairnessTickGrabs() + after.localPops()
                + after.stolenTasks() - before.globalGrabs() - before.fairnessTickGrabs() - before.localPops()
                - before.stolenTasks()));
        System.out.println("yieldRunnextHits=" + (after.runnextHits() - before.runnextHits()));
    }

    /** Player {@code me} waits for its turn, then passes the turn and unparks the other player. */
    private static void play(int me, Thread[] pair) {
        for (int i = 0; i < ROUND_TRIPS; i++) {
            while (turn != me) {
                LockSupport.park();
            }
            turn = 1 - me;
            LockSupport.unpark(pair[1 - me]);
        }
    }
}
