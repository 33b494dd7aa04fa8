package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scheduling rules of the design brief, one by one, on real carriers. */
class SchedulingTest {

    @Test
    void runnextRunsFirstAndDisplacesItsOccupantToTheTail() {
        // A long time slice: on a loaded machine the submitting task may be descheduled for longer
        // than 10 ms, and a preemption request makes the loop skip runnext once, by design.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).build()) {
            List<String> order = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(3);
            s.execute(() -> {
                s.submit(() -> { order.add("local"); done.countDown(); }, Placement.LOCAL);
                s.submit(() -> { order.add("displaced"); done.countDown(); }, Placement.RUNNEXT);
                s.submit(() -> { order.add("runnext"); done.countDown(); }, Placement.RUNNEXT);
            });
            Probe.await(done, Probe.BOUND, s, "the three tasks");
            assertEquals(List.of("runnext", "local", "displaced"), order, s.snapshot().toString());
        }
    }

    @Test
    void aRunnextHandOffWakesNobodyButSysmonWakesAThiefWhenTheSubmitterKeepsComputing() {
        // A long time slice, so that no preemption request frees the task instead.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).timeSlice(Duration.ofSeconds(60)).build()) {
            AtomicBoolean handedOffRan = new AtomicBoolean();
            AtomicLong ranAfterMillis = new AtomicLong(-1);
            CountDownLatch done = new CountDownLatch(1);
            s.execute(() -> {
                // First let the carrier woken for this task's own submission park again: nobody
                // may be spinning when the hand-off is made.
                long quiet = System.nanoTime();
                while (!(s.snapshot().spinningCarriers() == 0 && s.snapshot().idleProcs() == 1)
                        && System.nanoTime() - quiet < 5_000_000_000L) {
                    Thread.onSpinWait();
                }
                long start = System.nanoTime();
                s.submit(() -> {
                    ranAfterMillis.set((System.nanoTime() - start) / 1_000_000);
                    handedOffRan.set(true);
                }, Placement.RUNNEXT);
                // Keep the P for up to 5 s: the task in runnext must be stolen meanwhile.
                while (!handedOffRan.get() && System.nanoTime() - start < 5_000_000_000L) {
                    Thread.onSpinWait();
                }
                done.countDown();
            });
            Probe.await(done, Probe.BOUND, s, "the computing submitter");
            assertTrue(handedOffRan.get() && ranAfterMillis.get() < 1_000,
                    "the hand-off ran on another carrier while its submitter computed (after "
                            + ranAfterMillis.get() + " ms)\n" + s.snapshot());
            assertTrue(s.snapshot().steals() >= 1, s.snapshot().toString());
        }
    }

    /**
     * A yield goes behind the P's local work; with work waiting on the global queue, it gives way
     * to that too, from its ring: the P takes the global task next, and the yielder's next run
     * comes from the ring, not from the global queue.
     */
    @Test
    void aYieldGoesBehindTheLocalWorkAndGivesWayToTheGlobalQueueWhenThatHasWork() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            List<String> order = new CopyOnWriteArrayList<>();
            CountDownLatch done = new CountDownLatch(2);
            Runnable[] yielder = new Runnable[1];
            AtomicInteger yields = new AtomicInteger();
            yielder[0] = () -> {
                order.add("yielder");
                if (yields.getAndIncrement() == 0) {
                    s.submit(() -> { order.add("local"); done.countDown(); }, Placement.LOCAL);
                    s.submit(yielder[0], Placement.YIELD); // behind "local"
                } else {
                    done.countDown();
                }
            };
            s.execute(yielder[0]);
            Probe.await(done, Probe.BOUND, s, "the yielder and the local task");
            Probe.awaitTrue(() -> order.size() == 3, Probe.BOUND, s, "three runs");
            assertEquals(List.of("yielder", "local", "yielder"), order);
            SchedulerSnapshot counts = s.snapshot();
            assertEquals(1, counts.globalGrabs() + counts.fairnessTickGrabs(), "only the first run came from the global queue");
        }
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            List<String> order = new CopyOnWriteArrayList<>();
            CountDownLatch queued = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(2);
            Runnable[] yielder = new Runnable[1];
            AtomicInteger yields = new AtomicInteger();
            yielder[0] = () -> {
                order.add("yielder");
                if (yields.getAndIncrement() == 0) {
                    Probe.block(queued); // a task from outside is on the global queue now
                    s.submit(yielder[0], Placement.YIELD); // the ring, and the global task next
                } else {
                    done.countDown();
                }
            };
            s.execute(yielder[0]);
            Probe.awaitTrue(() -> !order.isEmpty(), Probe.BOUND, s, "the yielder to start");
            s.execute(() -> { order.add("global"); done.countDown(); });
            queued.countDown();
            Probe.await(done, Probe.BOUND, s, "the yielder and the global task");
            Probe.awaitTrue(() -> order.size() == 3, Probe.BOUND, s, "three runs");
            assertEquals(List.of("yielder", "global", "yielder"), order);
            SchedulerSnapshot counts = s.snapshot();
            assertEquals(1, counts.localPops(), "the yielder's second run came from its ring\n" + counts);
            assertEquals(2, counts.globalGrabs() + counts.fairnessTickGrabs(),
                    "the yielder's first run and the global task came from the global queue\n" + counts);
        }
    }

    /**
     * Yielders beside a stream of work from outside: each yield gives way to that work by taking
     * it out of the global queue, never by joining it. Yields that joined the global queue whenever
     * it had work kept it from ever running dry (once one yielder waited there, every other
     * yield saw work and joined it): with 8 Ps on 2 cores, 97 % of the yields went through it.
     */
    @Test
    void yieldsBesideWorkFromOutsideStayInTheirRings() throws InterruptedException {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("yield-storm").build()) {
            int yielders = 4;
            int turns = 100_000;
            CountDownLatch done = new CountDownLatch(yielders);
            for (int i = 0; i < yielders; i++) {
                AtomicInteger left = new AtomicInteger(turns);
                Runnable[] self = new Runnable[1];
                self[0] = () -> {
                    if (left.decrementAndGet() > 0) {
                        s.submit(self[0], Placement.YIELD);
                    } else {
                        done.countDown();
                    }
                };
                s.execute(self[0]);
            }
            AtomicLong fromOutside = new AtomicLong();
            Thread outside = Thread.ofPlatform().start(() -> { // a task every 50 us until the yielders end
                while (done.getCount() > 0) {
                    s.execute(() -> { });
                    fromOutside.incrementAndGet();
                    LockSupport.parkNanos(50_000);
                }
            });
            Probe.await(done, Probe.BOUND, s, "the yielders' turns");
            outside.join();
            SchedulerSnapshot counts = s.snapshot();
            long global = counts.globalGrabs() + counts.fairnessTickGrabs();
            long submitted = fromOutside.get() + yielders; // what came from outside the carriers
            assertTrue(global <= submitted + 1_000, global + " runs came from the global queue, "
                    + submitted + " tasks were submitted there, for " + yielders * turns + " yields\n" + counts);
        }
    }

    /**
     * More yielding tasks than a ring holds, on one P: each must get its turn within about one
     * pass over all of them. While yields went to the ring's tail whenever it had work, the
     * ring's overflow sent yielders to the global queue, which the P served one task per
     * GLOBAL_CHECK_NANOS while its ring had work: those waited for hundreds of the local
     * yielders' turns (a timed-park benchmark with 1,000 yielding partners ran 8 times slower
     * than on ForkJoinPool). A yield from a long ring now joins the global queue's back whenever
     * that has work.
     */
    @Test
    void moreYieldersThanARingHoldsTakeTurnsInOrder() {
        int yielders = 4 * RunQueue.CAPACITY;
        int turns = 20;
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("yielders").build()) {
            AtomicLong clock = new AtomicLong(); // runs so far, of every yielder
            long[] lastRun = new long[yielders];
            long[] widestGap = new long[yielders];
            CountDownLatch done = new CountDownLatch(yielders);
            CountDownLatch go = new CountDownLatch(1);
            s.execute(() -> { // queues them all from the carrier: the ring overflows at once
                for (int i = 0; i < yielders; i++) {
                    int id = i;
                    Runnable[] self = new Runnable[1];
                    AtomicInteger left = new AtomicInteger(turns);
                    self[0] = () -> {
                        long now = clock.incrementAndGet();
                        if (lastRun[id] != 0) {
                            widestGap[id] = Math.max(widestGap[id], now - lastRun[id]);
                        }
                        lastRun[id] = now;
                        if (left.decrementAndGet() > 0) {
                            s.submit(self[0], Placement.YIELD);
                        } else {
                            done.countDown();
                        }
                    };
                    s.submit(self[0], Placement.LOCAL);
                }
                Probe.block(go);
            });
            go.countDown();
            Probe.await(done, Probe.BOUND, s, "every yielder's turns");
            long widest = 0;
            for (long gap : widestGap) {
                widest = Math.max(widest, gap);
            }
            // A fair pass is `yielders` runs; allow twice that (batches, the ring's own turns).
            assertTrue(widest <= 2L * yielders, "a yielder waited " + widest + " runs for its next turn (fair: about "
                    + yielders + ")\n" + s.snapshot());
        }
    }

    /**
     * A task that yields queues itself again and wakes nobody: its carrier, back in its loop at
     * once, runs it again, so the idle P does not get a spinner (which would steal the yielder)
     * after its yields. Bounds, not zero: the first run's wake-up makes a spinner, a spinner that
     * finds work wakes the next one (Go's resetspinning), and a few more spinners start during the
     * run from other paths (1 to 7 in 2,000 yields, measured; 11 to 28 when each yield could wake).
     */
    @Test
    void yieldsDoNotWakeSpinners() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            int turns = 2_000;
            Thread[] last = new Thread[1]; // the yielder's runs are ordered: each queues the next
            int[] moves = new int[1];
            CountDownLatch done = new CountDownLatch(1);
            AtomicInteger left = new AtomicInteger(turns);
            Runnable[] self = new Runnable[1];
            self[0] = () -> {
                if (last[0] != null && last[0] != Thread.currentThread()) {
                    moves[0]++;
                }
                last[0] = Thread.currentThread();
                if (left.decrementAndGet() > 0) {
                    s.submit(self[0], Placement.YIELD);
                } else {
                    done.countDown();
                }
            };
            s.execute(self[0]); // from outside: the global queue, and a wake-up
            Probe.await(done, Probe.BOUND, s, "the yielder's turns");
            SchedulerSnapshot snap = s.snapshot();
            assertTrue(moves[0] <= turns / 20, "the yielder moved between carriers " + moves[0] + " times\n" + snap);
            assertTrue(snap.spins() <= turns / 20, "yields woke spinners\n" + snap);
        }
    }

    /**
     * A searcher that found nothing waits a little (RunLoop.SEARCH_SPIN_NANOS) for work from a
     * busy P before it parks: a task that computes and hands out small tasks every few
     * microseconds keeps the other carrier taking them (stolen, at once) instead of parking after
     * each and being woken for the next, a futex wake each time.
     */
    @Test
    void aSearcherWaitsBrieflyForWorkFromABusyPBeforeItParks() {
        // A wait far longer than the default 20 us: the OS may deschedule the busy task for
        // milliseconds on a loaded machine, and the test is about the wait, not its length.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("searcher").searchSpin(Duration.ofSeconds(60)).build()) {
            AtomicLong ran = new AtomicLong();
            AtomicLong handedOut = new AtomicLong();
            CountDownLatch done = new CountDownLatch(1);
            long[] parks = new long[2];
            s.execute(() -> {
                parks[0] = s.snapshot().parks();
                long end = System.nanoTime() + 300_000_000;
                while (System.nanoTime() - end < 0) {
                    long next = System.nanoTime() + 5_000;
                    while (System.nanoTime() - next < 0) {
                        Thread.onSpinWait(); // computes
                    }
                    s.submit(ran::incrementAndGet, Placement.LOCAL);
                    handedOut.incrementAndGet();
                }
                parks[1] = s.snapshot().parks();
                done.countDown();
            });
            Probe.await(done, Probe.BOUND, s, "the busy task");
            long parked = parks[1] - parks[0];
            long tasks = handedOut.get();
            assertTrue(tasks > 1_000, "only " + tasks + " tasks handed out");
            assertTrue(parked * 100 < tasks, parked + " parks for " + tasks + " tasks handed out every 5 us\n" + s.snapshot());
            // The wait ends with the busy P's work, not at its bound: with no P busy, nothing
            // is coming, and a searcher that went on spinning would burn a core for a minute.
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (s.snapshot().idleProcs() < 2) {
                assertTrue(System.nanoTime() - deadline < 0, "a searcher still spins with no P busy\n" + s.snapshot());
                Thread.onSpinWait();
            }
        }
    }


    @Test
    void tasksFromRunnextInheritTheTimeSlice() {
        // A long time slice: on a loaded machine the chain may outlast 10 ms, and sysmon's
        // preemption request would then rightly start a new slice.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).build()) {
            long[] ticks = new long[2];
            CountDownLatch done = new CountDownLatch(1);
            AtomicInteger hops = new AtomicInteger();
            Runnable[] chain = new Runnable[1];
            chain[0] = () -> {
                if (hops.incrementAndGet() < 1_000) {
                    s.submit(chain[0], Placement.RUNNEXT); // a hand-off chain, like ping-pong
                } else {
                    ticks[1] = s.snapshot().processors().getFirst().schedtick();
                    done.countDown();
                }
            };
            s.execute(() -> {
                ticks[0] = s.snapshot().processors().getFirst().schedtick();
                s.submit(chain[0], Placement.RUNNEXT);
            });
            Probe.await(done, Probe.BOUND, s, "the hand-off chain");
            assertEquals(ticks[0], ticks[1], "1,000 hand-offs shared one time slice");
            assertEquals(1_000, s.snapshot().runnextHits());
        }
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            long[] ticks = new long[2];
            CountDownLatch done = new CountDownLatch(1);
            AtomicInteger hops = new AtomicInteger();
            Runnable[] chain = new Runnable[1];
            chain[0] = () -> {
                if (hops.incrementAndGet() < 1_000) {
                    s.submit(chain[0], Placement.LOCAL);
                } else {
                    ticks[1] = s.snapshot().processors().getFirst().schedtick();
                    done.countDown();
                }
            };
            s.execute(() -> {
                ticks[0] = s.snapshot().processors().getFirst().schedtick();
                s.submit(chain[0], Placement.LOCAL);
            });
            Probe.await(done, Probe.BOUND, s, "the local chain");
            assertEquals(ticks[0] + 1_000, ticks[1], "each task from the ring starts a new time slice");
        }
    }

    @Test
    void fairnessTickRunsAGlobalTaskWithin61SchedulesWhileLocalWorkKeepsArriving() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            AtomicLong schedules = new AtomicLong();
            AtomicLong queuedAt = new AtomicLong(-1);
            AtomicLong ranAt = new AtomicLong(-1);
            CountDownLatch done = new CountDownLatch(1);
            Runnable[] chain = new Runnable[1];
            chain[0] = () -> {
                long n = schedules.incrementAndGet();
                if (n == 10) {
                    queuedAt.set(n);
                    s.submit(() -> ranAt.set(schedules.get()), Placement.GLOBAL);
                }
                if (n < 500) {
                    s.submit(chain[0], Placement.LOCAL); // the local queue is never empty
                } else {
                    done.countDown();
                }
            };
            s.execute(chain[0]);
            Probe.await(done, Probe.BOUND, s, "the local chain");
            assertTrue(ranAt.get() >= 0, "the global task never ran");
            long waited = ranAt.get() - queuedAt.get();
            assertTrue(waited <= RunLoop.FAIRNESS_TICK,
                    "the global task waited " + waited + " schedules\n" + s.snapshot());
            assertTrue(s.snapshot().fairnessTickGrabs() >= 1, s.snapshot().toString());
        }
    }

    @Test
    void anIdlePStealsHalfOfABusyPsQueue() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            int tasks = 200;
            CountDownLatch done = new CountDownLatch(tasks);
            List<Thread> ranOn = new CopyOnWriteArrayList<>();
            List<Thread> holder = new CopyOnWriteArrayList<>();
            s.execute(() -> {
                holder.add(Thread.currentThread());
                for (int i = 0; i < tasks; i++) {
                    s.execute(() -> {
                        ranOn.add(Thread.currentThread());
                        Probe.spin(Duration.ofNanos(1_000L * (200)));
                        done.countDown();
                    });
                }
                // Hold this P: only a thief can start the queued tasks now.
                Probe.spin(Duration.ofMillis(100));
            });
            Probe.await(done, Probe.BOUND, s, "the queued tasks");
            SchedulerSnapshot snap = s.snapshot();
            assertTrue(snap.steals() >= 1, snap.toString());
            assertTrue(snap.stolenTasks() >= tasks / 2, "the first steal alone takes half\n" + snap);
            assertTrue(ranOn.stream().anyMatch(t -> t != holder.getFirst()),
                    "another carrier ran queued tasks while their P was held");
        }
    }

    @Test
    void aFullRingOverflowsHalfToTheGlobalQueueAndNothingIsLost() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).build()) {
            int tasks = 300;
            CountDownLatch done = new CountDownLatch(tasks);
            s.execute(() -> {
                for (int i = 0; i < tasks; i++) {
                    s.execute(done::countDown);
                }
            });
            Probe.await(done, Probe.BOUND, s, "the queued tasks");
            SchedulerSnapshot snap = s.snapshot();
            // The 257th overflows; the batch may overflow the ring once more when it is taken
            // back while the ring still holds the rest (RunLoop's step 2).
            assertTrue(snap.overflows() >= 1, snap.toString());
            assertTrue(snap.globalGrabs() + snap.fairnessTickGrabs() >= GlobalQueue.MAX_BATCH,
                    "the batch came back through the global queue\n" + snap);
            assertEquals(tasks + 1, snap.tasksRun());
        }
    }

    @Test
    void sysmonBreaksAPingPongPairSoATaskQueuedBehindItRunsWithinTwoTimeSlices() {
        Duration slice = Duration.ofMillis(100);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(slice).build()) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong queuedAt = new AtomicLong();
            AtomicLong ranAt = new AtomicLong();
            CountDownLatch ran = new CountDownLatch(1);
            Runnable[] pair = new Runnable[2];
            for (int i = 0; i < 2; i++) {
                int other = 1 - i;
                pair[i] = () -> {
                    if (!stop.get()) {
                        s.submit(pair[other], Placement.RUNNEXT); // hand-offs share one time slice
                    }
                };
            }
            s.execute(() -> {
                s.submit(pair[0], Placement.RUNNEXT);
                queuedAt.set(System.nanoTime());
                s.submit(() -> {
                    ranAt.set(System.nanoTime());
                    ran.countDown();
                }, Placement.LOCAL); // behind the pair, on the same P
            });
            Probe.await(ran, Probe.BOUND, s, "the task queued behind the ping-pong pair");
            stop.set(true);
            Duration waited = Duration.ofNanos(ranAt.get() - queuedAt.get());
            assertTrue(waited.compareTo(slice.multipliedBy(2)) <= 0,
                    "waited " + waited + " behind the pair\n" + s.snapshot());
            // Sysmon counts its request after making it: the carrier may honour it first.
            Probe.awaitTrue(() -> s.snapshot().preemptRequests() >= 1, Probe.BOUND, s, "the request to be counted");
        }
    }

    @Test
    void workFromOutsideWakesAnIdleP() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).build()) {
            for (int round = 0; round < 50; round++) {
                Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, Probe.BOUND, s, "both Ps idle");
                CountDownLatch done = new CountDownLatch(1);
                s.execute(done::countDown);
                Probe.await(done, Probe.BOUND, s, "a task submitted to an idle scheduler");
            }
            assertTrue(s.snapshot().parks() >= 1);
        }
    }
}
