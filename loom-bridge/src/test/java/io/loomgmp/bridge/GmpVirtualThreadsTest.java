package io.loomgmp.bridge;

import io.loomgmp.bridge.probe.CarrierProbe;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-builder API; Surefire starts this JVM with the --add-opens/--add-exports it needs. */
class GmpVirtualThreadsTest {
    @Test
    void builderThreadsAndTheirChildrenRunOnTheScheduler() throws Exception {
        try (GmpScheduler gmp = GmpScheduler.builder().procs(2).name("built").build()) {
            List<String> carriers = new CopyOnWriteArrayList<>();
            Thread parent = GmpVirtualThreads.builder(gmp).name("parent").start(() -> {
                carriers.add(CarrierProbe.carrierOf(Thread.currentThread()));
                Thread child = Thread.ofVirtual().start(() -> carriers.add(CarrierProbe.carrierOf(Thread.currentThread())));
                try {
                    child.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            parent.join();
            assertEquals(2, carriers.size());
            for (String carrier : carriers) {
                assertTrue(carrier.matches("built-M\\d+"), carrier);
            }
            // A virtual thread of the JDK's default scheduler, for contrast.
            String[] jdk = new String[1];
            Thread.ofVirtual().start(() -> jdk[0] = CarrierProbe.carrierOf(Thread.currentThread())).join();
            assertTrue(jdk[0].startsWith("ForkJoinPool"), jdk[0]);
        }
    }

    @Test
    void perTaskExecutorRunsEveryTaskOnTheScheduler() throws Exception {
        try (GmpScheduler gmp = GmpScheduler.builder().procs(2).name("tasks").build();
             ExecutorService executor = GmpVirtualThreads.newVirtualThreadPerTaskExecutor(gmp)) {
            List<Future<String>> results = new java.util.ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                results.add(executor.submit(() -> {
                    Thread.sleep(1); // a timed park: resumed from the JDK's timer thread
                    return CarrierProbe.carrierOf(Thread.currentThread());
                }));
            }
            for (Future<String> result : results) {
                assertTrue(result.get().matches("tasks-M\\d+"), result.get());
            }
        }
    }

    @Test
    void aProducerConsumerPairHandsOffThroughRunnext() throws Exception {
        int items = 10_000;
        // One P: the pair cannot meet spinning on two carriers (which on an idle 2-core machine
        // hands most items over with no park at all, and so proves nothing about the hand-off):
        // every item is a park and an unpark, and each wake-up must go to runnext.
        try (GmpScheduler gmp = GmpScheduler.builder().procs(1).build()) {
            SynchronousQueue<Integer> queue = new SynchronousQueue<>();
            long[] sum = new long[1];
            Thread.Builder.OfVirtual builder = GmpVirtualThreads.builder(gmp);
            Thread consumer = builder.start(() -> {
                try {
                    for (int i = 0; i < items; i++) {
                        sum[0] += queue.take();
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread producer = builder.start(() -> {
                try {
                    for (int i = 0; i < items; i++) {
                        queue.put(i);
                    }
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            producer.join();
            consumer.join();
            assertEquals((long) items * (items - 1) / 2, sum[0]);
            SchedulerSnapshot snapshot = gmp.snapshot();
            assertTrue(snapshot.runnextHits() >= items / 2, snapshot.toString());
        }
    }
}
