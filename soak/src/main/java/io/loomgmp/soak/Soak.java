package io.loomgmp.soak;

import io.loomgmp.bridge.GmpVirtualThreads;
import io.loomgmp.dispatcher.FaultSeams;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * One soak run, in stages, each bounded by the {@link Watchdog}:
 * <ol>
 *   <li><b>warm-up</b> ({@value #WARM_UP_SECONDS} s): everything at once, as in the soak itself,
 *       so that classes, JIT code, JFR, the scheduler's arrays and the carriers have all been
 *       through it once;</li>
 *   <li><b>drain</b>: the drivers stop, and every unit of work made must settle;</li>
 *   <li><b>rest</b>: back to the first P count, spare carriers retire after their keep-alive,
 *       then the heap after a collection: the <b>baseline</b>;</li>
 *   <li><b>soak</b> (the duration asked for), <b>drain</b> and <b>rest</b> again: the figures at
 *       the end;</li>
 *   <li><b>close</b>: every carrier thread must end; then the {@link Summary}.</li>
 * </ol>
 * Everything at once means, as {@link Driver}s on platform threads: two
 * {@link PlatformSubmitter}s (and, through the work they submit, carriers and virtual threads
 * submitting), a {@link Resizer}, {@link PinEpisodes}, {@link FaultWindows} and a
 * {@link JfrSwitch}. The scheduler has a 2 ms time slice (sysmon preempts often), a 1 s
 * keep-alive (spare carriers retire during the run, not only at its end), at most
 * {@value #MAX_CARRIERS} carriers, the soak's {@link HandlerReports} as its handler, and the
 * {@link Faults}' seams and carrier factory.
 */
final class Soak {
    static final String NAME = "soak";
    static final long WARM_UP_SECONDS = 8;
    static final Duration WARM_UP = Duration.ofSeconds(WARM_UP_SECONDS);
    static final Duration KEEP_ALIVE = Duration.ofSeconds(1);
    static final Duration TIME_SLICE = Duration.ofMillis(2);
    static final int MAX_CARRIERS = 64;
    /** Beyond the longest timer or sleep, what a blocked task may wait for its release, and a margin. */
    static final Duration DRAIN_BOUND = Work.RELEASE_BOUND.plusSeconds(30);
    /** For spare carriers to retire (a keep-alive each) and the Ps to go idle. */
    static final Duration REST_BOUND = Duration.ofSeconds(30);
    static final Duration CLOSE_BOUND = Duration.ofSeconds(60);
    /** For the carrier threads to end once close() has returned. */
    static final Duration THREADS_END_BOUND = Duration.ofSeconds(10);
    /** While work runs, some must settle at least this often. */
    static final Duration STALL_BOUND = Duration.ofSeconds(60);
    private static final Duration DRIVER_STOP_BOUND = Duration.ofSeconds(30);
    /** Added to each stage's own bound before the watchdog calls the run stuck. */
    private static final Duration WATCHDOG_SLACK = Duration.ofSeconds(30);

    private final SoakOptions options;
    private final PrintStream out;
    private final PrintStream err;
    private final IntConsumer exit;
    private final Ledger ledger = new Ledger();
    private final Faults faults = new Faults();
    private final HandlerReports handler = new HandlerReports(ledger);
    private final int initialProcs;
    private GmpScheduler scheduler;
    private Work work;
    private Watchdog watchdog;
    private Progress progress;
    private Path jfrDirectory;

    /** @param exit ends the JVM with a status; the watchdog calls it for a stuck run */
    Soak(SoakOptions options, PrintStream out, PrintStream err, IntConsumer exit) {
        this.options = options;
        this.out = out;
        this.err = err;
        this.exit = exit;
        this.initialProcs = Math.min(Runtime.getRuntime().availableProcessors(), options.maxProcs());
    }

    /** Runs the soak; returns its exit status (0: every check held). */
    int run() throws Exception {
        GmpScheduler.Builder builder = GmpScheduler.builder().name(NAME).procs(initialProcs).maxCarriers(MAX_CARRIERS)
                .timeSlice(TIME_SLICE).keepAlive(KEEP_ALIVE).uncaughtExceptionHandler(handler)
                .threadFactory(faults.carrierFactory());
        FaultSeams.injectLoopFault(builder, faults.loopFault());
        FaultSeams.injectTimerMoveFault(builder, faults.timerMoveFault());
        scheduler = builder.build();
        ScheduledThreadPoolExecutor platformLater =
                new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("soak-later").factory());
        work = new Work(scheduler, ledger, GmpVirtualThreads.builder(scheduler).name("soak-v", 0).factory(), platformLater,
                err);
        jfrDirectory = Files.createTempDirectory("loomgmp-soak-jfr-");
        watchdog = new Watchdog(scheduler, ledger::settledTotal, err, exit, STALL_BOUND, Duration.ofSeconds(1));
        watchdog.stage("warm-up", WARM_UP.plus(DRIVER_STOP_BOUND).plus(WATCHDOG_SLACK), true);
        watchdog.start();
        progress = new Progress(ledger, faults, scheduler, out, options.progress());
        progress.start();
        SplittableRandom random = new SplittableRandom(options.seed());
        long started = System.nanoTime();
        out.printf(Locale.ROOT, "soak: seed %d, %s after a %s warm-up, %d to %d Ps (starting with %d), %s; rerun with"
                        + " ./loomgmp soak --duration %s --seed %d --max-procs %d%n", options.seed(),
                SoakOptions.text(options.duration()), SoakOptions.text(WARM_UP), 1, options.maxProcs(), initialProcs,
                Runtime.version(), SoakOptions.text(options.duration()), options.seed(), options.maxProcs());

        Resting baseline = null;
        Resting end = null;
        mix("warm-up", WARM_UP, random.split());
        boolean drained = drain("warm-up");
        if (drained) {
            baseline = rest("baseline");
            out.println("soak: baseline, at rest after the warm-up: " + baseline);
            mix("soak", options.duration(), random.split());
            drained = drain("soak");
            if (drained) {
                end = rest("end");
                out.println("soak: at rest after the soak: " + end);
            }
        }
        platformLater.shutdownNow(); // what is left cancels timers long fired, or unparks threads long ended
        SchedulerSnapshot beforeClose = scheduler.snapshot();
        Closing closing = close();
        watchdog.stop();
        progress.stop();
        deleteRecordings();
        Summary summary = new Summary(options, initialProcs, ledger, faults, handler.sites(), beforeClose, baseline, end,
                drained, closing, Duration.ofNanos(System.nanoTime() - started), watchdog.longestStall(),
                watchdog.longestStallStage());
        summary.print(out);
        return summary.passed() ? 0 : 1;
    }

    /** Everything at once for {@code length}: the drivers start, run, and stop. */
    private void mix(String phase, Duration length, SplittableRandom random) throws InterruptedException {
        watchdog.stage(phase, length.plus(DRIVER_STOP_BOUND).plus(WATCHDOG_SLACK), true);
        progress.phase(phase, length);
        List<Driver> drivers = List.of(
                new PlatformSubmitter("submitter-1", work, random.split()),
                new PlatformSubmitter("submitter-2", work, random.split()),
                new Resizer(scheduler, faults, options.maxProcs(), ledger, random.split()),
                new PinEpisodes(work, random.split()),
                new FaultWindows(faults, ledger, random.split()),
                new JfrSwitch(jfrDirectory, NAME, progress::jfr, ledger, random.split()));
        drivers.forEach(Driver::start);
        Thread.sleep(length);
        drivers.forEach(Driver::stop);
        for (Driver driver : drivers) {
            if (!driver.awaitStopped(DRIVER_STOP_BOUND)) {
                ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, "driver " + driver.name + " did not stop within "
                        + DRIVER_STOP_BOUND);
            }
        }
    }

    /** Waits for every unit of work made to settle; false (with the evidence printed) if some did not within the bound. */
    private boolean drain(String phase) throws InterruptedException {
        watchdog.stage("drain after " + phase, DRAIN_BOUND.plus(WATCHDOG_SLACK), true);
        progress.phase("drain", DRAIN_BOUND);
        long deadline = System.nanoTime() + DRAIN_BOUND.toNanos();
        while (ledger.outstanding() != 0) {
            if (System.nanoTime() - deadline > 0) {
                StringBuilder left = new StringBuilder();
                for (Ledger.Kind kind : Ledger.Kind.values()) {
                    if (ledger.outstanding(kind) != 0) {
                        left.append(left.isEmpty() ? "" : ", ").append(ledger.outstanding(kind)).append(' ').append(kind.label);
                    }
                }
                err.println("soak: work still outstanding " + DRAIN_BOUND + " after the " + phase + " ended: " + left
                        + "; the evidence follows");
                err.println(Evidence.of(scheduler));
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    /**
     * Back to the first P count; waits until the scheduler rests (every P idle, nothing blocked
     * or spinning, no P retiring, no spare carrier left, and as many carrier threads alive as
     * it counts) or the bound passes, then measures the heap after a collection.
     */
    private Resting rest(String what) throws InterruptedException {
        watchdog.stage("rest (" + what + ")", REST_BOUND.plus(WATCHDOG_SLACK), false);
        progress.phase("rest", REST_BOUND);
        scheduler.setProcs(initialProcs);
        long start = System.nanoTime();
        long deadline = start + REST_BOUND.toNanos();
        SchedulerSnapshot s;
        int retiring;
        int threadsAlive;
        boolean atRest;
        do {
            Thread.sleep(50);
            s = scheduler.snapshot();
            retiring = FaultSeams.retiringProcs(scheduler);
            threadsAlive = faults.carrierThreadsAlive().size();
            atRest = s.carriers() <= initialProcs && s.idleProcs() == s.procs() && s.spinningCarriers() == 0
                    && s.blockedCarriers() == 0 && retiring == 0 && threadsAlive == s.carriers();
        } while (!atRest && System.nanoTime() - deadline < 0);
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        if (!atRest) {
            err.println("soak: the scheduler did not come to rest (" + what + ") within " + REST_BOUND + "; the evidence follows");
            err.println(Evidence.of(scheduler));
        }
        return new Resting(s, retiring, threadsAlive, heapAfterGc(), atRest, waited);
    }

    /** Heap in use after a full collection: the least of three, so that what the JVM's own threads allocate meanwhile counts little. */
    static long heapAfterGc() throws InterruptedException {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
            Thread.sleep(100);
        }
        return least;
    }

    /** Closes the scheduler within its bound, then waits for every carrier thread to end. */
    private Closing close() throws InterruptedException {
        watchdog.stage("close", CLOSE_BOUND.plus(THREADS_END_BOUND).plus(WATCHDOG_SLACK), false);
        progress.phase("close", CLOSE_BOUND);
        Thread closer = Thread.ofPlatform().name("soak-closer").start(scheduler::close);
        boolean returned = closer.join(CLOSE_BOUND);
        if (!returned) {
            err.println("soak: close() did not return within " + CLOSE_BOUND + "; the evidence follows");
            err.println(Evidence.of(scheduler));
        }
        long deadline = System.nanoTime() + THREADS_END_BOUND.toNanos();
        List<Thread> alive = faults.carrierThreadsAlive();
        while (!alive.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
            alive = faults.carrierThreadsAlive();
        }
        return new Closing(returned, scheduler.isTerminated(), scheduler.snapshot(), alive.stream().map(Thread::getName).toList(),
                faults.carriersMade.get());
    }

    private void deleteRecordings() throws IOException {
        try (Stream<Path> files = Files.walk(jfrDirectory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    /**
     * The scheduler at rest, and the heap after a collection.
     *
     * @param threadsAlive carrier threads alive as the soak's factory sees them
     * @param atRest       whether the scheduler came to rest within the bound (else these are the last figures seen)
     */
    record Resting(SchedulerSnapshot snapshot, int retiring, int threadsAlive, long heapBytes, boolean atRest, Duration waited) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d carriers (%d threads alive), %d of %d Ps idle, heap after GC %,.1f MiB%s, after %d ms",
                    snapshot.carriers(), threadsAlive, snapshot.idleProcs(), snapshot.procs(), heapBytes / 1048576.0,
                    atRest ? "" : " (NOT at rest: " + snapshot.blockedCarriers() + " blocked, " + snapshot.spinningCarriers()
                            + " spinning, " + retiring + " Ps retiring)", waited.toMillis());
        }
    }

    /**
     * How close() went.
     *
     * @param returned    close() returned within its bound
     * @param threadsLeft carrier threads still alive after it (names)
     */
    record Closing(boolean returned, boolean terminated, SchedulerSnapshot after, List<String> threadsLeft, long carriersMade) {
    }
}
