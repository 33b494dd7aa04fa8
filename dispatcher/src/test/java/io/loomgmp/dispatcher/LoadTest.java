package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Large workloads: everything completes, with the right result. Bounds are generous. */
class LoadTest {
    private static final Duration BOUND = Duration.ofSeconds(120);

    /** Skynet: a tree of fan-out 10 whose 1,000,000 leaves sum their numbers. */
    @Test
    void millionTaskSpawnTreeCompletesWithTheRightSum() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            LongAdder sum = new LongAdder();
            AtomicInteger leavesLeft = new AtomicInteger(1_000_000);
            CountDownLatch done = new CountDownLatch(1);
            s.execute(new Node(s, 6, 0, sum, leavesLeft, done));
            Probe.await(done, BOUND, s, "the spawn tree");
            assertEquals(499_999_500_000L, sum.sum());
            SchedulerSnapshot snap = s.snapshot();
            assertEquals(1_111_111, snap.tasksRun(), snap.toString());
            System.out.println("[spawn tree, 1,111,111 tasks] " + snap);
        }
    }

    /** One node of the spawn tree: children are started from the carrier, as a virtual thread starts others. */
    private record Node(GmpScheduler s, int depth, long number, LongAdder sum, AtomicInteger leavesLeft,
                        CountDownLatch done) implements Runnable {
        @Override
        public void run() {
            if (depth == 0) {
                sum.add(number);
                if (leavesLeft.decrementAndGet() == 0) {
                    done.countDown();
                }
                return;
            }
            for (int i = 0; i < 10; i++) {
                s.submit(new Node(s, depth - 1, number * 10 + i, sum, leavesLeft, done), Placement.RUNNEXT);
            }
        }
    }

    /** 100 producer/consumer pairs hand 100,000 items each through a one-slot mailbox. */
    @Test
    void hundredProducerConsumerPairsHandOffAHundredThousandItemsEach() {
        int pairs = 100;
        int items = 100_000;
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            CountDownLatch done = new CountDownLatch(pairs);
            AtomicLong checksum = new AtomicLong();
            for (int i = 0; i < pairs; i++) {
                new Pair(s, items, checksum, done).start();
            }
            Probe.await(done, BOUND, s, "the producer/consumer pairs");
            long perPair = (long) items * (items - 1) / 2;
            assertEquals(pairs * perPair, checksum.get());
            SchedulerSnapshot snap = s.snapshot();
            assertTrue(snap.runnextHits() > (long) pairs * items, "hand-offs go through runnext\n" + snap);
            System.out.println("[producer/consumer, " + pairs + " pairs] " + snap);
        }
    }

    /** A producer and a consumer taking turns; each wakes the other through runnext. */
    private static final class Pair {
        private final GmpScheduler s;
        private final int items;
        private final AtomicLong checksum;
        private final CountDownLatch done;
        // Handed between the two tasks; the run queue's release/acquire publishes them.
        private int mailbox;
        private int produced;
        private int consumed;
        private long sum;

        Pair(GmpScheduler s, int items, AtomicLong checksum, CountDownLatch done) {
            this.s = s;
            this.items = items;
            this.checksum = checksum;
            this.done = done;
        }

        void start() {
            s.execute(this::produce);
        }

        private void produce() {
            mailbox = produced++;
            s.submit(this::consume, Placement.RUNNEXT);
        }

        private void consume() {
            if (mailbox != consumed) {
                throw new AssertionError("expected item " + consumed + ", got " + mailbox);
            }
            sum += mailbox;
            consumed++;
            if (consumed == items) {
                checksum.addAndGet(sum);
                done.countDown();
            } else {
                s.submit(this::produce, Placement.RUNNEXT);
            }
        }
    }
}
