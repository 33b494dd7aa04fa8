package io.loomgmp.benchmarks.saturation;

import benchapp.CalibratedBurn;
import io.loomgmp.benchmarks.ProcessCpuClock;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a saturation server tells the runner on {@code /stats}: its process's CPU time (so that the
 * runner can take the CPU time of exactly the measured window), the requests it has answered and
 * is answering, the CPU work its requests have done, by request class, and which scheduler its
 * requests really ran on.
 *
 * <p><b>The work done.</b> Each request class (its target, such as {@code /cpu?us=10000}) has a
 * count of the CPU loop's steps its requests have done, added to as the loop goes
 * ({@link CalibratedBurn#burnMicros(long, long, LongAdder)}: each millisecond of work), whether or
 * not the request has ended. Over a window it says how much of the cores each class got: what a
 * fair scheduler owes a long class that finishes few requests in the window.
 *
 * <p><b>The scheduler check.</b> A virtual thread's {@code toString()} names its carrier while it
 * runs ({@code VirtualThread[#42]/runnable@gmp-M0} on GMP, {@code ...@ForkJoinPool-1-worker-1} on
 * the JDK's scheduler). The server probes one virtual thread at start-up, and every request handler
 * samples its own carrier (the first {@value #ALWAYS_SAMPLED} requests, then one in
 * {@value #SAMPLE_EVERY}: {@code toString()} allocates). The runner fails the run if a GMP cell's
 * requests ran anywhere but on {@code gmp-M*} carriers, or a ForkJoinPool cell's on GMP: an agent
 * that silently stepped aside would otherwise be measured as GMP.
 */
final class ServerStats {
    static final int ALWAYS_SAMPLED = 16;
    static final int SAMPLE_EVERY = 64;

    private final ProcessCpuClock cpu = ProcessCpuClock.create();
    /** {@link ProcessCpuClock#nanos()} reuses one buffer: one reader at a time. */
    private final ReentrantLock cpuLock = new ReentrantLock();
    private final String scheduler;
    private final double stepsPerMicro;
    private final LongAdder requests = new LongAdder();
    private final AtomicInteger inflight = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final LongAdder onGmp = new LongAdder();
    private final LongAdder onFjp = new LongAdder();
    private final LongAdder onOther = new LongAdder();
    private final AtomicReference<String> firstOther = new AtomicReference<>();
    /** Steps done by request target; a target is added at its first request and never removed. */
    private final ConcurrentHashMap<String, LongAdder> work = new ConcurrentHashMap<>();

    ServerStats(String scheduler, double stepsPerMicro) {
        this.scheduler = scheduler;
        this.stepsPerMicro = stepsPerMicro;
    }

    /** "gmp", "fjp" or "other": the scheduler whose carrier a running virtual thread's {@code toString()} names. */
    static String schedulerOf(String virtualThread) {
        int at = virtualThread.lastIndexOf('@');
        String carrier = at < 0 ? "" : virtualThread.substring(at + 1);
        if (carrier.startsWith("gmp-M")) {
            return "gmp";
        }
        if (carrier.startsWith("ForkJoinPool")) {
            return "fjp";
        }
        return "other";
    }

    /** The scheduler of a virtual thread started now: what this JVM runs virtual threads on. */
    static String probeScheduler() throws InterruptedException {
        AtomicReference<String> seen = new AtomicReference<>();
        Thread.ofVirtual().start(() -> seen.set(schedulerOf(Thread.currentThread().toString()))).join();
        return seen.get();
    }

    /** A request begins on the current thread: counts it and, if sampled, where it runs. */
    void begin() {
        inflight.incrementAndGet();
        int n = started.getAndIncrement();
        if (n < ALWAYS_SAMPLED || n % SAMPLE_EVERY == 0) {
            Thread thread = Thread.currentThread();
            String where = thread.isVirtual() ? schedulerOf(thread.toString()) : "other";
            switch (where) {
                case "gmp" -> onGmp.increment();
                case "fjp" -> onFjp.increment();
                default -> {
                    onOther.increment();
                    firstOther.compareAndSet(null, thread.toString());
                }
            }
        }
    }

    /** The request that {@link #begin()} counted has its answer (or failed). */
    void end() {
        inflight.decrementAndGet();
        requests.increment();
    }

    /** The count of the CPU loop's steps done for requests to {@code target} ({@code /cpu?us=1000}). */
    LongAdder workOf(String target) {
        return work.computeIfAbsent(target, t -> new LongAdder());
    }

    long cpuNanos() {
        cpuLock.lock();
        try {
            return cpu.nanos();
        } finally {
            cpuLock.unlock();
        }
    }

    Snapshot snapshot() {
        return new Snapshot(cpuNanos(), requests.sum(), inflight.get(), scheduler, onGmp.sum(), onFjp.sum(),
                onOther.sum(), stepsPerMicro, firstOther.get(), workSteps());
    }

    private SortedMap<String, Long> workSteps() {
        SortedMap<String, Long> steps = new TreeMap<>();
        work.forEach((target, count) -> steps.put(target, count.sum()));
        return steps;
    }

    /**
     * One reading of the stats: its line is {@code key=value} pairs separated by spaces.
     *
     * @param cpuNanos      the server process's CPU time so far (all its threads)
     * @param requests      requests answered so far
     * @param inflight      requests being handled now
     * @param scheduler     what a virtual thread probed at start-up ran on: gmp, fjp or other
     * @param onGmp         sampled requests that ran on a gmp-M* carrier; likewise onFjp, onOther
     * @param stepsPerMicro the CPU loop's calibration
     * @param firstOther    the first sampled request thread that ran on neither (its toString()), or null
     * @param workSteps     the CPU loop's steps done so far, by request target; in the line, each is
     *                      {@code work.<target, URL-encoded>=<steps>}
     */
    record Snapshot(long cpuNanos, long requests, int inflight, String scheduler, long onGmp, long onFjp,
                    long onOther, double stepsPerMicro, String firstOther, SortedMap<String, Long> workSteps) {
        private static final String WORK = "work.";

        Snapshot {
            workSteps = Collections.unmodifiableSortedMap(new TreeMap<>(workSteps));
        }

        String line() {
            StringBuilder line = new StringBuilder("cpu_ns=" + cpuNanos + " requests=" + requests + " inflight=" + inflight
                    + " scheduler=" + scheduler + " on_gmp=" + onGmp + " on_fjp=" + onFjp + " on_other=" + onOther
                    + " steps_per_us=" + stepsPerMicro + (firstOther == null ? "" : " first_other=" + firstOther.replace(' ', '_')));
            workSteps.forEach((target, steps) -> line.append(' ').append(WORK)
                    .append(URLEncoder.encode(target, StandardCharsets.UTF_8)).append('=').append(steps));
            return line.toString();
        }

        /** The steps done for requests to {@code target} so far; 0 if none came. */
        long workSteps(String target) {
            return workSteps.getOrDefault(target, 0L);
        }

        /** @throws IllegalArgumentException if {@code line} is not a {@link #line()} */
        static Snapshot parse(String line) {
            Map<String, String> fields = new HashMap<>();
            for (String pair : line.strip().split(" +")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("not a stats line (\"" + pair + "\" is no key=value): " + line);
                }
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            try {
                SortedMap<String, Long> work = new TreeMap<>();
                for (Map.Entry<String, String> field : fields.entrySet()) {
                    if (field.getKey().startsWith(WORK)) {
                        work.put(URLDecoder.decode(field.getKey().substring(WORK.length()), StandardCharsets.UTF_8),
                                Long.parseLong(field.getValue()));
                    }
                }
                return new Snapshot(Long.parseLong(need(fields, "cpu_ns", line)), Long.parseLong(need(fields, "requests", line)),
                        Integer.parseInt(need(fields, "inflight", line)), need(fields, "scheduler", line),
                        Long.parseLong(need(fields, "on_gmp", line)), Long.parseLong(need(fields, "on_fjp", line)),
                        Long.parseLong(need(fields, "on_other", line)), Double.parseDouble(need(fields, "steps_per_us", line)),
                        fields.get("first_other"), work);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a stats line (" + e.getMessage() + "): " + line, e);
            }
        }

        private static String need(Map<String, String> fields, String key, String line) {
            String value = fields.get(key);
            if (value == null) {
                throw new IllegalArgumentException("not a stats line (no " + key + "): " + line);
            }
            return value;
        }

        /**
         * Null if every sampled request ran on {@code expected}'s carriers ("gmp" or "fjp") and at
         * least one was sampled, else what went wrong.
         */
        String wrongScheduler(String expected) {
            if (!scheduler.equals(expected)) {
                return "the server's virtual threads run on " + scheduler + ", not " + expected;
            }
            long right = expected.equals("gmp") ? onGmp : onFjp;
            long wrong = expected.equals("gmp") ? onFjp + onOther : onGmp + onOther;
            if (wrong > 0) {
                return wrong + " sampled requests ran off " + expected + "'s carriers"
                        + (firstOther != null ? " (e.g. " + firstOther + ")" : "");
            }
            if (right == 0) {
                return "no request was sampled: nothing shows which scheduler ran them";
            }
            return null;
        }
    }
}
