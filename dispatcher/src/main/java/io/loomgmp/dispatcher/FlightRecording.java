package io.loomgmp.dispatcher;

import io.loomgmp.jfr.SchedLatencyEvent;
import io.loomgmp.jfr.SchedTraceEvent;
import jdk.jfr.FlightRecorder;
import jdk.jfr.FlightRecorderListener;
import jdk.jfr.Recording;
import jdk.jfr.RecordingState;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Whether a JFR recording is running, for the scheduler's event sites ({@link Events}), and the
 * periodic {@code loomgmp.SchedTrace} and {@code loomgmp.SchedLatency} events of every live
 * scheduler.
 *
 * <p>Cost with no recording: each event site reads {@link #on}, a static volatile boolean that is
 * false (a plain load on x86, one predictable branch); only when it is true does a site create its
 * event and ask JFR whether that event is enabled ({@code isEnabled}/{@code shouldCommit}), so
 * the settings of the running recordings decide, as they change. Why not just create the events:
 * until JFR is initialised an event's {@code begin}/{@code commit} are not free, and
 * {@link FlightRecorder#addPeriodicEvent} initialises JFR (about 0.7 s on a 2-core machine), which
 * is why the periodic hook is registered only once the recorder exists
 * ({@link FlightRecorderListener#recorderInitialized}, called at once if it already does).
 */
final class FlightRecording {
    /** Some recording is running. Written by JFR's listener thread; read by every event site. */
    static volatile boolean on;

    private static final Set<Scheduling> SCHEDULERS = ConcurrentHashMap.newKeySet();
    /** Without the jdk.jfr module (a trimmed runtime image) nothing is recorded and {@link #on} stays false. */
    private static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();
    private static boolean listening; // guarded by the class lock
    /** Guards every scheduler's {@code latencyEmitted}. */
    private static final Object LATENCY_LOCK = new Object();

    private FlightRecording() {
    }

    /** Whether JFR is in this runtime at all. */
    static boolean available() {
        return AVAILABLE;
    }

    /** A new scheduler reports in the periodic event until {@link #unregister}. */
    static void register(Scheduling scheduling) {
        SCHEDULERS.add(scheduling);
        synchronized (FlightRecording.class) {
            if (AVAILABLE && !listening) {
                listening = true;
                FlightRecorder.addListener(new FlightRecorderListener() {
                    @Override
                    public void recorderInitialized(FlightRecorder recorder) {
                        FlightRecorder.addPeriodicEvent(SchedTraceEvent.class, FlightRecording::emitSchedTraces);
                        FlightRecorder.addPeriodicEvent(SchedLatencyEvent.class, FlightRecording::emitSchedLatencies);
                        refresh(recorder);
                    }

                    @Override
                    public void recordingStateChanged(Recording recording) {
                        refresh(FlightRecorder.getFlightRecorder());
                    }
                });
            }
        }
    }

    /** Whether {@code scheduling} is registered for the periodic events: for tests. */
    static boolean isRegistered(Scheduling scheduling) {
        return SCHEDULERS.contains(scheduling);
    }

    static void unregister(Scheduling scheduling) {
        SCHEDULERS.remove(scheduling);
    }

    private static void refresh(FlightRecorder recorder) {
        on = recorder.getRecordings().stream().anyMatch(r -> r.getState() == RecordingState.RUNNING);
    }

    /**
     * JFR's periodic thread (or a thread starting or stopping a recording, if the settings ask
     * for the event at chunk boundaries; hence the lock): for each live scheduler, the latencies
     * sampled since the previous call, in all and by each source that had samples. Never throws
     * into JFR: a failure is reported as an {@link SchedulerFailure.Site#EVENT} failure of that
     * scheduler, and the next call covers its period too.
     */
    private static void emitSchedLatencies() {
        synchronized (LATENCY_LOCK) {
            for (Scheduling scheduling : SCHEDULERS) {
                emitSchedLatency(scheduling);
            }
        }
    }

    /** Holds {@link #LATENCY_LOCK}. */
    private static void emitSchedLatency(Scheduling scheduling) {
        try {
            if (!new SchedLatencyEvent().isEnabled()) {
                return;
            }
            LatencyTotals now = Snapshots.latency(scheduling);
            LatencyTotals before = scheduling.latencyEmitted;
            LatencyTotals period = before == null ? now : now.minus(before);
            commitSchedLatency(scheduling.name, period, SchedLatencyEvent.SOURCE_ALL, period.all());
            period.bySource().forEach((source, waits) -> {
                if (waits.count() > 0) {
                    commitSchedLatency(scheduling.name, period, source, waits);
                }
            });
            scheduling.latencyEmitted = now;
        } catch (Throwable failure) {
            scheduling.failures.report(SchedulerFailure.Site.EVENT, failure, "the loomgmp.SchedLatency event was dropped");
        }
    }

    /** Tests: what the {@code loomgmp.SchedLatency} events of {@code scheduling} have covered so far, or null. */
    static LatencyTotals latencyEmitted(Scheduling scheduling) {
        synchronized (LATENCY_LOCK) {
            return scheduling.latencyEmitted;
        }
    }

    private static void commitSchedLatency(String scheduler, LatencyTotals period, String source, LatencyHistogram waits) {
        SchedLatencyEvent event = new SchedLatencyEvent();
        event.scheduler = scheduler;
        event.source = source;
        event.sampleEvery = period.sampleEvery();
        event.samples = waits.count();
        event.mean = Math.round(waits.meanNanos());
        event.p50 = waits.percentileNanos(0.5);
        event.p99 = waits.percentileNanos(0.99);
        event.max = waits.maxNanos();
        event.histogram = histogramText(waits);
        event.commit();
    }

    /** The non-empty buckets as {@code upperBoundNanos:count}, space-separated; {@code inf} for the last bound. */
    static String histogramText(LatencyHistogram waits) {
        StringBuilder out = new StringBuilder();
        for (int b = 0; b < LatencyHistogram.BUCKETS; b++) {
            long count = waits.bucketCount(b);
            if (count > 0) {
                if (!out.isEmpty()) {
                    out.append(' ');
                }
                out.append(b == LatencyHistogram.BUCKETS - 1 ? "inf" : String.valueOf(LatencyHistogram.bucketUpperBoundNanos(b)))
                        .append(':').append(count);
            }
        }
        return out.toString();
    }

    /** JFR's periodic thread: one event per live scheduler. */
    private static void emitSchedTraces() {
        for (Scheduling scheduling : SCHEDULERS) {
            SchedTraceEvent event = new SchedTraceEvent();
            if (!event.isEnabled()) {
                return;
            }
            SchedulerSnapshot s = Snapshots.of(scheduling);
            event.scheduler = s.name();
            event.procs = s.procs();
            event.idleProcs = s.idleProcs();
            event.carriers = s.carriers();
            event.spinningCarriers = s.spinningCarriers();
            event.idleCarriers = s.idleCarriers();
            event.blockedCarriers = s.blockedCarriers();
            event.globalQueue = s.globalQueueLength();
            event.localQueues = s.processors().stream().map(p -> String.valueOf(p.runnable()))
                    .collect(Collectors.joining(" "));
            event.tasksRun = s.tasksRun();
            event.steals = s.steals();
            event.preemptRequests = s.preemptRequests();
            event.handoffs = s.handoffs();
            event.commit();
        }
    }
}
