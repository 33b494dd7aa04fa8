package io.loomgmp.bridge.probe;

import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;

/**
 * Run under the agent with one P (and {@code --add-opens java.base/java.util.concurrent}): asks
 * the JDK's spin heuristic, {@code ForkJoinWorkerThread.hasKnownQueuedWork()}, from a virtual
 * thread whose P's queue is empty and then from one that has just started a child (which waits
 * in its P's runnext). Prints {@code withoutQueuedWork} and {@code withQueuedWork}.
 */
public final class QueuedWorkProbe {
    private QueuedWorkProbe() {
    }

    public static void main(String[] args) throws Exception {
        Method heuristic = Class.forName("java.util.concurrent.ForkJoinWorkerThread")
                .getDeclaredMethod("hasKnownQueuedWork");
        heuristic.setAccessible(true);
        boolean[] answers = new boolean[2];
        Thread.ofVirtual().start(() -> {
            try {
                answers[0] = (boolean) heuristic.invoke(null);
                CountDownLatch childRan = new CountDownLatch(1);
                Thread.ofVirtual().start(childRan::countDown); // queued on this P, not run yet
                answers[1] = (boolean) heuristic.invoke(null);
                childRan.await();
            } catch (ReflectiveOperationException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).join();
        System.out.println("withoutQueuedWork=" + answers[0]);
        System.out.println("withQueuedWork=" + answers[1]);
    }
}
