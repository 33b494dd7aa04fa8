package io.loomgmp.dispatcher;

/**
 * The scheduling loop of a carrier (Go's {@code schedule}/{@code findRunnable}; Tokio's
 * {@code worker.rs}): find a task, run it, repeat; give up the P and park when there is nothing.
 *
 * <pre>
 * run(m): take the handed P ─► findRunnable ─► runTask ─► findRunnable ─► ...
 *         (a task whose P sysmon handed off returns ─► HandOff.regainP)
 * findRunnable: R this P was retired (setProcs): its queue to the global queue, give it up
 *               0 due timers of this P (their tasks land in runnext)
 *               1 runnext (inherits the time slice; skipped once on a preemption request)
 *               1b a preempted task, once other work had this P for half the last one's slice
 *               2 a ready task, when none was taken for GLOBAL_CHECK_NANOS (or the fairness tick,
 *                 or a task yielded while ready work waited)
 *               3 local ring ─► 4 ready batch ─► the skipped runnext ─► 5 one yielded task
 *               6 due timers of other Ps ─► 7 steal (while spinners ≤ busy Ps / 2) ─► 7b wait
 *                 up to SEARCH_SPIN_NANOS for work from the busy Ps
 *               8 give up P ─► 9 spinner's re-check ─► 10 park, until the earliest timer if
 *                 no other carrier sleeps for it (the three: Parking.stop)
 * </pre>
 *
 * <h2>Why work from outside cannot starve</h2>
 * A CPU-bound task holds its P for a time slice at most (sysmon, {@link Sysmon}); preempted, it
 * goes to the global <em>yielded</em> lane, behind every other runnable task, as in Go. Work
 * that arrives from outside (a platform thread, an I/O poller) goes to the <em>ready</em> lane,
 * which each P serves before its local ring once {@link #GLOBAL_CHECK_NANOS} have passed since it
 * last took from it, and timers run at the top of every schedule. So with any number of
 * CPU-bound threads per P, a timer's thread runs within one time slice of its expiry, and outside
 * work within one time slice plus its place among the other ready tasks: bounded in time, not
 * only in schedules as Go's fairness tick is.
 *
 * <h2>Why preempted work cannot starve either</h2>
 * The other side: under saturation the ready lane never runs dry, so a preempted task must not
 * wait for it to. Step 1b gives the head of the yielded lane its turn on a P once other work has
 * had that P for half as long as the last preempted task's slice (at least
 * {@link #PREEMPTED_TURN_NANOS}; {@link #PREEMPTED_WEIGHT}): while both classes wait, each P
 * gives about two thirds to preempted tasks and one third to other work, and the yielded lane is
 * served in FIFO order. So a preempted task with k others ahead of it runs again within about
 * {@code (k + 1) * 1.5 * slice / procs}, where a slice is about
 * {@link Retake#GIVE_WAY_AFTER_NANOS} while work waits and the time slice at most; and short work
 * keeps about a third of every P however many long tasks there are, and never waits more than a
 * give-way delay for a long task to make room.
 *
 * <h2>Ownership and failure</h2>
 * Everything here runs on carrier {@code m}'s own thread while it holds its P as owner
 * ({@code m.inLoop}, see {@link Lease}), except the task itself, during which sysmon may retake
 * the P. What a task throws goes to the uncaught-exception handler and the loop goes on; the
 * carrier's interrupt status is cleared after every task and every timer's task, so one task's
 * self-interrupt (or a {@code cancel(true)} of a timer while it runs) never reaches the next task
 * nor the carrier's parks. Anything else that throws here ends the carrier
 * through {@link Carriers#live}, which puts the task in hand ({@code m.inHand}) and the P's queue
 * back on the global queue: a task taken from a queue is in {@code m.inHand} until it has run.
 * Just before a task runs, the loop takes it out of its sample if it was sampled and records how
 * long it waited ({@link LatencySamples}, into the P's {@link LatencyRecorder}); what that throws
 * is reported and costs only the sample.
 */
final class RunLoop {
    /** Go's value; prime, so the fairness tick does not fall in lock-step with periodic workloads. */
    static final int FAIRNESS_TICK = 61;
    /**
     * Longest a P's local work may keep the global ready lane waiting: once this long has passed
     * since the P last took a ready task, it takes one before its local ring. Tokio aims its
     * self-tuning global-queue interval at this (200 µs); a fixed bound in time does the same
     * job without an average to tune, and costs one {@code System.nanoTime()} per schedule only
     * while ready work waits.
     */
    static final long GLOBAL_CHECK_NANOS = 200_000;
    /**
     * How many times as much of a saturated P preempted work gets as other work: after a
     * preempted task's slice, a P runs other work for {@code 1 / PREEMPTED_WEIGHT} as long
     * ({@link Processor#preemptedSliceEnded}), at least {@link #PREEMPTED_TURN_NANOS}; then the
     * head of the yielded lane runs next, ahead of ready and local work
     * ({@link #preemptedTurnIfDue}). So while both wait, long work has two thirds of every P and
     * short work one third.
     *
     * <p>Why not half each: the two sides are protected differently. Short work's latency is
     * bounded by the give-way delay whatever its share (a long task gives way once it has run
     * that long while work waits), so its share only sets how fast a backlog of it drains, and a
     * third of the P still served short requests faster than ForkJoinPool did in the published
     * saturation run (whose own rate there varies from run to run, from none upwards). Long work
     * has only its share: at half, a 10 ms request beside a stream of short ones on Jetty, whose
     * selector threads take their part of the cores outside any P, got 56 % of what ForkJoinPool
     * gives it, and about a quarter on an earlier, slower host; at two thirds, 73 %
     * (docs/configuration.md has the measured trade-off).
     */
    static final int PREEMPTED_WEIGHT = 2;
    /**
     * The least time a P runs other work between two slices of preempted tasks while both wait
     * (more after a longer slice, {@link #PREEMPTED_WEIGHT}). Half the give-way delay, which is
     * about how long a long task's slice lasts while other work waits. Without a turn a preempted
     * task waited until the ready lane ran dry, which under saturation it never does.
     */
    static final long PREEMPTED_TURN_NANOS = Retake.GIVE_WAY_AFTER_NANOS / PREEMPTED_WEIGHT;
    /** Largest batch moved from the global queue to a local ring: half the ring, as in Go. */
    static final int GLOBAL_BATCH_MAX = RunQueue.CAPACITY / 2;
    /**
     * How long a searcher that found nothing waits for work from the busy Ps before it gives up
     * its P and parks ({@link #spinForWork}): about what waking a parked carrier costs on a small
     * VM, so that a wait no longer than that costs no more CPU than the wake-up it saves.
     */
    static final long SEARCH_SPIN_NANOS = 20_000;
    /** {@link #SEARCH_SPIN_NANOS}, unless a test chose a longer wait ({@link TestSeams#searchSpin}). */
    private final long searchSpinNanos;
    /** {@link TestSeams#loopFault}: null in use. */
    private final Runnable loopFaultForTests;
    /** {@code Thread.onSpinWait} calls between two looks at the queues during that wait (about a microsecond). */
    static final int SEARCH_SPINS_PER_LOOK = 32;

    private final Scheduling scheduling;
    private final Idle idle;
    private final Stealing stealing;

    RunLoop(Scheduling scheduling, TestSeams seams) {
        this.scheduling = scheduling;
        this.idle = scheduling.idle;
        this.stealing = new Stealing(scheduling);
        this.searchSpinNanos = seams.searchSpin().toNanos();
        this.loopFaultForTests = seams.loopFault();
    }

    /** Carrier {@code m}'s loop: take the handed P, then find and run tasks until it ends. */
    void run(Carrier m) {
        Processor first = scheduling.parking.takeNextP(m);
        if (first == null) {
            return;
        }
        first.acquire(m);
        if (m.spinning && Events.on()) {
            Events.spinStarted(m);
        }
        while (true) {
            Runnable task = findRunnable(m);
            if (task == null) {
                return; // terminated, or retired after the keep-alive
            }
            if (task instanceof LatencySamples.Sample sample) {
                task = sample.task();
                recordLatency(m, m.p, sample);
            }
            m.inHand = task;
            if (m.spinning) {
                idle.foundWork(m);
            }
            if (loopFaultForTests != null) {
                loopFaultForTests.run();
            }
            boolean holdsP = runTask(m, task);
            m.inHand = null;
            if (!holdsP && !scheduling.handOff.regainP(m)) {
                return;
            }
        }
    }

    /**
     * Runs {@code task} with the P's lease in the in-task phase, during which sysmon may take the
     * P if the task blocks. Returns whether {@code m} still holds its P afterwards.
     */
    private boolean runTask(Carrier m, Runnable task) {
        Processor p = m.p;
        p.count(Counter.TASKS_RUN);
        m.yieldingAtPoll = false;
        boolean recorded = Events.on();
        if (recorded) {
            Events.newRun(m);
            Events.runStarts(m);
        }
        m.runs(task);
        p.enterTask(m);
        try {
            task.run();
        } catch (Throwable failure) {
            scheduling.failures.reportToHandler(failure);
        } finally {
            m.running = null;
            // A task that interrupted its carrier (a plain Runnable interrupting its own thread)
            // must not leave the flag to the next task, nor to the carrier's parks, which would
            // return at once, over and over. ForkJoinPool and ThreadPoolExecutor do the same.
            Thread.interrupted();
        }
        m.inHand = null; // it ran: from here on a failure must not queue it again
        if (recorded) {
            Events.runEnded(m, p, task);
        }
        return p.leaveTask(m);
    }

    /**
     * Carrier {@code m}, holding {@code p} in its loop, about to run the task that was queued in
     * {@code sample}: records how long it waited, under the source it was taken from ({@code timer}
     * for a task a timer made runnable). What this throws (an {@code OutOfMemoryError} making the
     * P's recorder) is reported and costs only the sample: the task runs all the same.
     */
    private void recordLatency(Carrier m, Processor p, LatencySamples.Sample sample) {
        try {
            RunSource source = sample.timer() ? RunSource.TIMER : m.events.runSource;
            p.latencyRecorder().record(source, System.nanoTime() - sample.queuedAt());
        } catch (Throwable failure) {
            scheduling.failures.report(SchedulerFailure.Site.LATENCY_SAMPLE, failure,
                    "the task runs untimed");
        }
    }

    /**
     * Called by carrier {@code m}, which holds a P. Returns the next task to run, with {@code m}
     * holding a P (possibly another one); or {@code null} once the scheduler has terminated.
     * Every task not taken from runnext starts a new time slice ({@link Processor#tick()}).
     */
    private Runnable findRunnable(Carrier m) {
        Processor p = m.p;
        while (true) {
            // R. Retired by setProcs (ProcResize): move its queue to the global queue and give
            // it up. An opaque read, not a fence: the decision is made under the lock.
            if (p.retiredHint()) {
                p = scheduling.parking.stop(m, scheduling.moveQueueToGlobal(p));
                if (p == null) {
                    return null;
                }
                continue;
            }
            // 0. This P's due timers (Go's checkTimers): a sleeper's wake-up never queues behind
            // CPU-bound work; its task lands in runnext and runs next.
            if (!p.timers.isEmpty()) {
                long now = System.nanoTime();
                if (p.timers.hasDue(now)) {
                    scheduling.timers.runDue(m, p.timers, now);
                }
            }
            // 1. runnext: a hand-off from the task that just ran, or a timer's thread; shares the
            // time slice. Skipped once when sysmon asked for preemption: a hand-off chain (a
            // ping-pong pair) would otherwise keep the P to itself, since runnext never starts a
            // new slice.
            boolean preempted = p.preemptRequested && Preemption.take(p);
            if (preempted && Events.on()) {
                Events.preemptHonoured(p, m);
            }
            Runnable task;
            if (!preempted) {
                task = took(m, p, p.runQueue.pollNext(), Counter.RUNNEXT_HITS, RunSource.RUNNEXT, false);
                if (task != null) {
                    return task;
                }
            }
            // 1b. A preempted task's turn: the other side of fairness. Short work goes first
            // (the ready lane, the ring), but not for ever: once this P has run other work for
            // half as long as the last preempted task's slice, the next one runs.
            task = took(m, p, preemptedTurnIfDue(p), Counter.GLOBAL_GRABS, RunSource.GLOBAL, true);
            if (task != null) {
                return task;
            }
            // 2. Global work that has waited long enough, ahead of the local ring: on the fairness
            // tick a yielded task or else a ready one, and a ready task when none was taken for
            // GLOBAL_CHECK_NANOS. (With the ring empty, steps 4 and 5 take them anyway.)
            task = took(m, p, p.runQueue.isEmpty() ? null : pollGlobalWhenDue(p), Counter.FAIRNESS_TICK_GRABS,
                    RunSource.FAIRNESS, true);
            if (task != null) {
                return task;
            }
            // 3. The local ring.
            task = took(m, p, p.runQueue.poll(), Counter.LOCAL_POPS, RunSource.LOCAL, true);
            if (task != null) {
                return task;
            }
            // 4. A batch of ready tasks from the global queue.
            task = took(m, p, grabReadyBatch(p), null, RunSource.GLOBAL, true);
            if (task != null) {
                return task;
            }
            // The skipped runnext, now with a new time slice, before yielded work.
            if (preempted) {
                task = took(m, p, p.runQueue.pollNext(), Counter.RUNNEXT_HITS, RunSource.RUNNEXT, true);
                if (task != null) {
                    return task;
                }
            }
            // 5. One yielded task: each may run a whole time slice, so no batch.
            task = took(m, p, takeYielded(p), Counter.GLOBAL_GRABS, RunSource.GLOBAL, true);
            if (task != null) {
                return task;
            }
            // 6. Due timers of other Ps, idle or busy (Go's stealWork runs them): their carrier
            // may be parked, blocked in a task, or deep in a time slice.
            if (scheduling.timers.runOthersDue(m, p)) {
                task = took(m, p, p.runQueue.pollNext(), Counter.RUNNEXT_HITS, RunSource.RUNNEXT, false);
                if (task == null) {
                    task = took(m, p, p.runQueue.poll(), Counter.LOCAL_POPS, RunSource.LOCAL, true);
                }
                if (task != null) {
                    return task;
                }
            }
            // 7. Steal, but keep the searchers to half the busy Ps (Idle: the spinner bound, one
            // CAS): more would burn CPU for nothing while the busy ones generate work.
            if (idle.startSpinning(m, p)) {
                task = took(m, p, stealing.stealWork(m, p), null, RunSource.STOLEN, true);
                if (task != null) {
                    return task;
                }
                // 7b. Nothing yet: wait a little for work from the busy Ps before giving up.
                if (spinForWork(p)) {
                    continue; // something came: look again from the top
                }
            }
            // 8-10. Nothing: give up the P, then look for one again or park (Parking.stop).
            p = scheduling.parking.stop(m, false);
            if (p == null) {
                return null;
            }
        }
    }

    /**
     * Searcher holding {@code p}, which found nothing anywhere: waits, spinning, up to
     * {@link #SEARCH_SPIN_NANOS} for work to appear (in any ring, the global queue, or a due
     * timer), while another P is busy; true if some did (the caller then looks again from the top).
     * Work comes from busy Ps (a hand-off, a spawn, an I/O poller's wake-up) and from outside;
     * caught here, it runs at once, where a parked carrier costs its waker a system call (a futex
     * wake, some 30 µs of wall time on a small VM) and the work that much latency, for every
     * request of a lightly loaded server. ForkJoinPool's workers scan before they block likewise.
     * Bounded: a search wait costs at most this much CPU, only while some P is busy, and only for
     * searchers, which {@link Idle#startSpinning} keeps to half the busy Ps; each look reads the
     * global queue and the held Ps' queues ({@link Idle#anyBusyQueued}), not every P's.
     */
    private boolean spinForWork(Processor p) {
        long now = System.nanoTime();
        long until = now + searchSpinNanos;
        // The earliest timer of any P, read once, not at every look (a walk over every P's heap).
        // A timer added during the wait is the adder's to wake someone for (Timers.added): if it
        // saw this spinner counted and woke nobody, this carrier re-checks the timers after its
        // decrement (Parking.spinnerRecheck) and, parking, sleeps for the earliest one.
        long timerDelay = scheduling.timers.delay(now);
        long timerDue = now + timerDelay;
        do {
            if (scheduling.procs - idle.idleProcs() <= 1) {
                return false; // no other P busy (this one counts as busy): nothing is coming
            }
            for (int i = 0; i < SEARCH_SPINS_PER_LOOK; i++) {
                Thread.onSpinWait();
            }
            // The held Ps' queues only (Idle's busy mask): an idle P's is empty, and a thief skips
            // one in transit.
            if (!scheduling.global.isEmpty() || !p.runQueue.isEmpty() || idle.anyBusyQueued(p, true)) {
                return true;
            }
            now = System.nanoTime();
            if (timerDelay >= 0 && now - timerDue >= 0) {
                return true;
            }
        } while (now - until < 0);
        return false;
    }

    /**
     * Owner of {@code p}. Step 1b of {@link #findRunnable}: the head of the yielded lane, if its
     * turn on {@code p} has come ({@link Processor#preemptedTurnAt}: other work has had the P for
     * half as long as the last preempted task's slice, and at least {@link #PREEMPTED_TURN_NANOS});
     * {@code null} otherwise. One volatile read when no preempted task waits.
     *
     * <p>The bound it gives: while preempted tasks wait, each P alternates between a preempted
     * task's slice (at most the time slice; about {@link Retake#GIVE_WAY_AFTER_NANOS} while other
     * work waits) and half as long of other work, so the yielded lane, in FIFO order, gets about
     * two thirds of every P whatever keeps arriving, and short work keeps the other third
     * ({@link #PREEMPTED_WEIGHT}).
     */
    private Runnable preemptedTurnIfDue(Processor p) {
        if (scheduling.global.yieldedSize() == 0) {
            return null;
        }
        long now = System.nanoTime();
        if (now - p.preemptedTurnAt < 0) {
            return null;
        }
        return takeYielded(p);
    }

    /**
     * Owner of {@code p}: the head of the yielded lane, or {@code null}; tells {@code p} when it
     * took it. The clock is read only then: the lane is empty on most looks.
     */
    private Runnable takeYielded(Processor p) {
        Runnable task = scheduling.global.pollYielded();
        if (task != null) {
            p.preemptedTaken(task, System.nanoTime());
        }
        return task;
    }

    /**
     * Owner of {@code p}, whose ring is not empty. Step 2 of {@link #findRunnable}: on the
     * fairness tick a yielded task, or else a ready one (ready work has the time bound; the tick
     * keeps preempted tasks from starving while outside work keeps arriving); a ready task if a
     * task of {@code p} yielded to the ready lane's work ({@link Processor#readyTurnOwed});
     * otherwise a ready task if {@code p} last took one at least {@link #GLOBAL_CHECK_NANOS} ago
     * and has run a task from its ring since; {@code null} otherwise. One volatile read when the
     * ready lane is empty and it is not the tick.
     *
     * <p>"Ran a local task since" is Tokio's lower bound on its global-queue interval (2 ticks):
     * with tasks longer than the bound, every schedule is overdue, and ready work must not take
     * every turn, or the ring (itself often filled from the ready lane) would wait until the
     * ready lane ran dry. So with long tasks the two alternate; with short ones, local work runs
     * for {@code GLOBAL_CHECK_NANOS} between two ready tasks.
     */
    private Runnable pollGlobalWhenDue(Processor p) {
        long tick = p.ownSchedtick();
        boolean fairnessTick = tick % FAIRNESS_TICK == 0;
        if (fairnessTick) {
            Runnable yielded = takeYielded(p);
            if (yielded != null) {
                return yielded;
            }
        }
        boolean owed = p.readyTurnOwed; // a task yielded to the ready lane's work
        if (owed) {
            p.readyTurnOwed = false; // written only when set: the P's line stays clean at other schedules
        }
        if (scheduling.global.readySize() > 0 && (fairnessTick || owed || tick - p.readyTakenTick >= 2)) {
            long now = System.nanoTime();
            if (fairnessTick || owed || now - p.ownReadyTakenAt() >= GLOBAL_CHECK_NANOS) {
                Object element = scheduling.global.pollReady();
                if (element != null) {
                    p.readyTaken(now);
                    p.readyTakenTick = tick + 1; // the tick this task's run starts
                    return firstOf(p, element, now);
                }
            }
        }
        return null;
    }

    /**
     * Owner of {@code p}, whose ring holds tasks: the task to run from {@code element}, just taken
     * from the ready lane at {@code now} (step 2: one task, as Go's fairness tick takes one). A
     * batch runs its first task. Its others go to the ring, behind the ring's tasks and in their
     * order, if they all fit (they are the ring's now, for thieves too, and sysmon knows that they
     * wait: {@link Processor#readyBatched}); else back to the ready lane, as one batch, behind what
     * waits there. Not into a ring too full for them: it would overflow its own older half back to
     * the global queue, and a P that takes a batch on every tick would keep moving its ring there.
     * Nothing here throws (the pushes and {@link GlobalQueue#putOverflow} never fail), so a batch
     * taken from the lane is never half queued.
     */
    private Runnable firstOf(Processor p, Object element, long now) {
        if (!(element instanceof Object[] batch)) {
            return (Runnable) element;
        }
        Runnable first = (Runnable) batch[0];
        int rest = batch.length - 1;
        if (RunQueue.CAPACITY - p.runQueue.size() >= rest) { // room only grows meanwhile: thieves only take
            for (int i = 1; i <= rest; i++) {
                scheduling.pushLocal(p, (Runnable) batch[i]);
            }
            p.readyBatched(now, p.runQueue.tailIndex());
            p.count(Counter.FAIRNESS_TICK_GRABS, rest); // taken with the first, on the same look
        } else {
            System.arraycopy(batch, 1, batch, 0, rest); // the batch is ours: no one else holds it now
            scheduling.global.putOverflow(batch, rest); // copies and clears it; never fails
        }
        return first;
    }

    /**
     * Owner of {@code p}, whose ring is empty. Step 4: {@link #grabReady}; tells {@code p} when it
     * took them, and sysmon that the rest wait in its ring.
     */
    private Runnable grabReadyBatch(Processor p) {
        int before = p.runQueue.tailIndex();
        Runnable first = grabReady(scheduling.global, p.runQueue, scheduling.procs);
        if (first == null) {
            return null;
        }
        int queued = p.runQueue.tailIndex() - before;
        long now = System.nanoTime();
        p.readyTaken(now);
        if (queued > 0) {
            p.readyBatched(now, p.runQueue.tailIndex()); // sysmon: they wait behind what p runs
        }
        p.count(Counter.GLOBAL_GRABS, queued + 1);
        return first;
    }

    /**
     * Owner of {@code ring}, which is empty (Go's globrunqget): takes ready elements until it has
     * {@code min(ready/procs + 1, GLOBAL_BATCH_MAX)} tasks or has taken a batch, a ring's overflow,
     * which it takes whole. Returns the first task and queues the others on {@code ring} in their
     * order; {@code null} if there was none. The ring cannot overflow: fewer than
     * {@code GLOBAL_BATCH_MAX} single tasks, then at most one batch of {@link GlobalQueue#MAX_BATCH},
     * fill it at most. Static, on the queues alone, so that jcstress runs this very code
     * ({@code GlobalBatchVsOverflow}).
     */
    static Runnable grabReady(GlobalQueue global, RunQueue ring, int procs) {
        int ready = global.readySize();
        if (ready == 0) {
            return null;
        }
        Object element = global.pollReady();
        if (element == null) {
            return null;
        }
        if (element instanceof Object[] batch) {
            for (int i = 1; i < batch.length; i++) {
                queueOnEmptied(global, ring, (Runnable) batch[i]);
            }
            return (Runnable) batch[0];
        }
        int max = Math.min(ready / procs + 1, GLOBAL_BATCH_MAX);
        for (int n = 1; n < max; n++) {
            Object next = global.pollReady();
            if (next instanceof Object[] batch) {
                for (Object task : batch) {
                    queueOnEmptied(global, ring, (Runnable) task);
                }
                break;
            }
            if (next == null) {
                break;
            }
            queueOnEmptied(global, ring, (Runnable) next);
        }
        return (Runnable) element;
    }

    /**
     * {@link #grabReady}'s push, into a ring that was empty and has room for the whole grab. Were
     * that ever wrong, the overflow goes back to the global queue: an assertion, not a lost task.
     */
    private static void queueOnEmptied(GlobalQueue global, RunQueue ring, Runnable task) {
        Object[] overflow = ring.pushOrOverflow(task);
        if (overflow != null) {
            global.putOverflow(overflow, overflow.length); // first: the tasks are safe before the assertion throws
            assert false : "a grab overflowed the ring it filled";
        }
    }

    /**
     * Owner of {@code p}: accounts for {@code task}, just taken (or null: nothing was), in
     * {@code counter} and the run's {@code source} (for the run event and the latency sample);
     * {@code newSlice}: it starts a new time slice (everything but runnext does). Returns
     * {@code task}.
     */
    private static Runnable took(Carrier m, Processor p, Runnable task, Counter counter, RunSource source,
                                 boolean newSlice) {
        if (task != null) {
            if (counter != null) {
                p.count(counter);
            }
            if (newSlice) {
                p.tick();
            }
            m.events.runSource = source;
        }
        return task;
    }

}
