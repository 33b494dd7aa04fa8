package io.loomgmp.trace;

import io.loomgmp.jfr.Settings;
import jdk.jfr.consumer.RecordedEvent;
import jdk.management.jfr.FlightRecorderMXBean;
import jdk.management.jfr.RecordingInfo;
import jdk.management.jfr.RemoteRecordingStream;

import javax.management.JMX;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.time.LocalTime;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A few seconds of loom-gmp's tracing events, streamed from the target JVM over the console's
 * JMX connection ({@link RemoteRecordingStream}: a JFR recording in the target with the tracing
 * settings, {@code loomgmp-trace.jfc}, whose chunks the console downloads as they fill), then
 * analysed as the trace viewer analyses a recording ({@link ThreadAnalysis}): the virtual threads
 * that ran longest, and those that waited longest, a wait being from a thread's wake-up (or its
 * yield) to its next run.
 *
 * <p>Threads: one daemon platform thread per trace runs it from start to analysis; the console's
 * loop reads {@link #status} (a volatile field) and may {@link #close} it at any time. The
 * stream's own thread adds the events to the model under the model's lock.
 *
 * <p>What is left in the target: the recording is closed when the trace ends, fails or is closed;
 * if the console dies without closing it (killed), the recording still stops by itself
 * {@link #LEFTOVER_BOUND} after its planned end, so the target does not go on paying for tracing.
 *
 * <p>Failure: whatever the trace throws (no JFR in the target, a lost connection) ends it as
 * {@link Failed} with one line saying why; the console goes on without it.
 */
final class LiveTrace implements AutoCloseable {
    /** How long {@code t} traces when {@code --trace} does not say. */
    static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);
    /** Longest trace: tracing costs the target a few events per task run, and the console their memory. */
    static final Duration MAX_DURATION = Duration.ofSeconds(60);
    /** A recording the console could not close stops by itself this long after its planned end. */
    static final Duration LEFTOVER_BOUND = Duration.ofSeconds(60);
    /** How many virtual threads each list shows. */
    static final int LIST_LENGTH = 5;
    /** Past this many loom-gmp events the model stops growing (about 100 bytes each), and the result says so. */
    static final int MAX_EVENTS = 2_000_000;

    /** What a trace is doing. */
    sealed interface Status permits Running, Done, Failed {
    }

    /** Streaming, with {@code leftNanos} to go. */
    record Running(Duration duration, long leftNanos) implements Status {
    }

    /** Over: the result, and when it ended (wall clock). */
    record Done(Result result, LocalTime endedAt) implements Status {
    }

    /** Ended without a result; {@code why} is one line. */
    record Failed(String why) implements Status {
    }

    /**
     * One virtual thread's figures over the trace (nanoseconds).
     *
     * @param name the thread's name when an event named it (a virtual thread that woke another),
     *             else null
     */
    record Row(long virtualThread, String name, long runningNanos, int runs, long longestWaitNanos,
               long waitingNanos, int waits) {
    }

    /**
     * What a trace found.
     *
     * @param nanos         how long it streamed
     * @param runs          runs of virtual threads
     * @param threads       virtual threads that ran
     * @param otherTaskRuns runs of tasks that are not virtual threads (not in the lists)
     * @param eventsLeftOut loom-gmp events past {@link #MAX_EVENTS}, not analysed
     * @param ranLongest    the threads that ran longest in all, longest first
     * @param waitedLongest the threads with the longest single waits, longest first
     */
    record Result(long nanos, int runs, int threads, int otherTaskRuns, long eventsLeftOut, List<Row> ranLongest,
                  List<Row> waitedLongest) {
        /** The lists of {@code model}'s virtual threads, {@code limit} long; {@code procs}: the scheduler's Ps. */
        static Result of(TraceModel model, int procs, long nanos, long eventsLeftOut, int limit) {
            model.sort();
            ThreadAnalysis analysis = ThreadAnalysis.of(model, procs);
            List<Row> rows = analysis.rows.stream()
                    .map(r -> new Row(r.virtualThread, model.knownName(r.virtualThread), r.runningNanos, r.runs,
                            r.longestWait, r.runnableNanos, r.waits))
                    .toList();
            int runs = rows.stream().mapToInt(Row::runs).sum();
            List<Row> ranLongest = rows.stream()
                    .sorted(Comparator.comparingLong(Row::runningNanos).reversed()
                            .thenComparingLong(Row::virtualThread))
                    .limit(limit).toList();
            List<Row> waitedLongest = rows.stream().filter(r -> r.waits() > 0)
                    .sorted(Comparator.comparingLong(Row::longestWaitNanos).reversed()
                            .thenComparing(Comparator.comparingLong(Row::waitingNanos).reversed())
                            .thenComparingLong(Row::virtualThread))
                    .limit(limit).toList();
            return new Result(nanos, runs, rows.size(), analysis.otherTaskRuns, eventsLeftOut, ranLongest,
                    waitedLongest);
        }
    }

    private static final ObjectName FLIGHT_RECORDER = objectName(FlightRecorderMXBean.MXBEAN_NAME);

    private final MBeanServerConnection connection;
    private final Duration duration;
    private final int procs;
    private final long startedNanos = System.nanoTime();
    private final Thread thread;
    private final Object lock = new Object();
    /** Guarded by {@link #lock}: the stream while it is open, and whether {@link #close} was called. */
    private RemoteRecordingStream stream;
    private boolean closed;
    private volatile Status finished;

    private LiveTrace(MBeanServerConnection connection, Duration duration, int procs) {
        this.connection = connection;
        this.duration = duration;
        this.procs = procs;
        this.thread = new Thread(this::trace, "loomgmp-top-trace");
        thread.setDaemon(true);
    }

    /** Starts a trace of {@code duration} of the scheduler with {@code procs} Ps in the JVM behind {@code connection}. */
    static LiveTrace start(MBeanServerConnection connection, Duration duration, int procs) {
        LiveTrace trace = new LiveTrace(connection, duration, procs);
        trace.thread.start();
        return trace;
    }

    /** Where the trace is at {@code nowNanos} ({@code System.nanoTime()}). */
    Status status(long nowNanos) {
        Status done = finished;
        if (done != null) {
            return done;
        }
        return new Running(duration, Math.max(0, startedNanos + duration.toNanos() - nowNanos));
    }

    /** Whether the trace is over (done or failed). */
    boolean isOver() {
        return finished != null;
    }

    /** Waits up to {@code bound} for the trace to be over; returns whether it is. */
    boolean awaitOver(Duration bound) throws InterruptedException {
        return thread.join(bound);
    }

    /**
     * Any thread, any time: ends the trace and closes its recording in the target (at once if
     * the trace is still streaming), waiting up to a few seconds for that. Never throws.
     */
    @Override
    public void close() {
        RemoteRecordingStream open;
        synchronized (lock) {
            closed = true;
            open = stream;
        }
        thread.interrupt();
        if (open != null) {
            open.close(); // closes the recording in the target; RemoteRecordingStream.close never throws
        }
        try {
            thread.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The trace's thread. */
    private void trace() {
        try {
            finished = new Done(stream(), LocalTime.now());
        } catch (TraceException e) {
            finished = new Failed(e.getMessage());
        } catch (InterruptedException e) {
            finished = new Failed("the trace was stopped");
        } catch (RuntimeException | OutOfMemoryError e) {
            finished = new Failed("the trace failed: " + e);
        }
    }

    private Result stream() throws TraceException, InterruptedException {
        FlightRecorderMXBean recorder;
        Set<Long> before;
        try {
            if (!connection.isRegistered(FLIGHT_RECORDER)) {
                throw new TraceException("no trace: the JVM has no JFR MBean (" + FLIGHT_RECORDER
                        + "; module jdk.management.jfr)");
            }
            recorder = JMX.newMXBeanProxy(connection, FLIGHT_RECORDER, FlightRecorderMXBean.class);
            before = ids(recorder.getRecordings());
        } catch (IOException e) {
            throw new TraceException("no trace: " + e.getMessage(), e);
        }
        TraceModel model = new TraceModel("live");
        long[] leftOut = {0};
        AtomicReference<Throwable> streamFailure = new AtomicReference<>();
        RemoteRecordingStream opened;
        try {
            opened = new RemoteRecordingStream(connection);
        } catch (IOException e) {
            throw new TraceException("no trace: " + e.getMessage(), e);
        }
        try (RemoteRecordingStream s = opened) {
            synchronized (lock) {
                if (closed) {
                    throw new InterruptedException();
                }
                stream = s;
            }
            long id = ourRecording(recorder, before);
            recorder.setRecordingSettings(id, Settings.configuration(Settings.TRACE).getSettings());
            long bound = duration.plus(LEFTOVER_BOUND).toSeconds();
            recorder.setRecordingOptions(id, Map.of("duration", bound + " s"));
            s.onEvent(e -> add(model, e, leftOut));
            s.onError(failure -> streamFailure.compareAndSet(null, failure));
            s.startAsync();
            Thread.sleep(duration);
            s.stop(); // the recording stops; returns once every event in it has been handed to onEvent
        } catch (IllegalArgumentException | IllegalStateException | UndeclaredThrowableException e) {
            // The proxy's calls (the recording vanished, the connection failed under it), or the
            // stream closed by a failure of its own, which onError saw first.
            Throwable cause = streamFailure.get() != null ? streamFailure.get()
                    : e instanceof UndeclaredThrowableException u && u.getCause() != null ? u.getCause() : e;
            throw new TraceException("the trace failed: " + cause, e);
        } finally {
            synchronized (lock) {
                stream = null;
            }
        }
        if (streamFailure.get() != null) {
            throw new TraceException("the trace failed: " + streamFailure.get());
        }
        synchronized (model) {
            return Result.of(model, procs, duration.toNanos(), leftOut[0], LIST_LENGTH);
        }
    }

    /** The stream's thread: one event. */
    private static void add(TraceModel model, RecordedEvent e, long[] leftOut) {
        String name = e.getEventType().getName();
        if (!name.startsWith("loomgmp.")) {
            return;
        }
        synchronized (model) {
            if (model.loomGmpEvents() >= MAX_EVENTS) {
                leftOut[0]++;
                return;
            }
            model.eventsRead++;
            RecordingReader.add(model, name, e);
        }
    }

    /**
     * The recording the stream just created: the one recording in state NEW that was not there
     * before. Another tool starting a recording at the same moment makes it ambiguous: then no trace.
     */
    private static long ourRecording(FlightRecorderMXBean recorder, Set<Long> before) throws TraceException {
        List<RecordingInfo> fresh = recorder.getRecordings().stream()
                .filter(r -> !before.contains(r.getId()) && "NEW".equals(r.getState())).toList();
        if (fresh.size() != 1) {
            throw new TraceException("no trace: cannot tell the console's recording among " + fresh.size()
                    + " new ones in the JVM (another tool started one meanwhile?): try again");
        }
        return fresh.getFirst().getId();
    }

    private static Set<Long> ids(List<RecordingInfo> recordings) {
        Set<Long> ids = new HashSet<>();
        for (RecordingInfo r : recordings) {
            ids.add(r.getId());
        }
        return ids;
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(name, e);
        }
    }
}
