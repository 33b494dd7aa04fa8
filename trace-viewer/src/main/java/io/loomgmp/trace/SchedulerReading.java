package io.loomgmp.trace;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.openmbean.CompositeData;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One reading of a scheduler's MXBean ({@code io.loomgmp:type=Scheduler,name=...}, the
 * dispatcher's {@code GmpSchedulerMXBean}) over JMX: what one frame of {@code loomgmp top} shows.
 * Read by attribute name, so the console needs neither the dispatcher on its class path nor the
 * same release of it: the latency figures are optional (a scheduler from before them has none),
 * every other attribute is required. Each attribute is exact at some moment, not necessarily the
 * same one (the MXBean takes a snapshot per attribute).
 *
 * @param readAtNanos    the console's {@code System.nanoTime()} when it read these: the time base
 *                       of the rates
 * @param uptimeMillis   the target JVM's uptime
 * @param processors     one row per P, by id
 * @param latency        the scheduling latency since the scheduler started, or null when the
 *                       MXBean has no latency figures
 */
record SchedulerReading(
        long readAtNanos,
        long uptimeMillis,
        String name,
        int procs,
        int idleProcs,
        int maxCarriers,
        boolean closed,
        int carriers,
        int runningCarriers,
        int spinningCarriers,
        int idleCarriers,
        int blockedCarriers,
        int globalQueueLength,
        int pendingTimers,
        long tasksRun,
        long steals,
        long globalGrabs,
        long fairnessTickGrabs,
        long preemptRequests,
        long handoffs,
        long parks,
        long timersFired,
        long failures,
        String schedtraceLine,
        List<ProcessorRow> processors,
        Latency latency) {

    /** The attributes every reading needs. */
    static final List<String> REQUIRED = List.of("Name", "Procs", "IdleProcs", "MaxCarriers", "Closed", "Carriers",
            "RunningCarriers", "SpinningCarriers", "IdleCarriers", "BlockedCarriers", "GlobalQueueLength",
            "PendingTimers", "TasksRun", "Steals", "GlobalGrabs", "FairnessTickGrabs", "PreemptRequests", "Handoffs",
            "Parks", "TimersFired", "Failures", "SchedtraceLine", "Processors");
    /** The latency attributes, read when the MXBean has them all. */
    static final List<String> LATENCY = List.of("LatencySample", "LatencySamples", "LatencyP50Nanos",
            "LatencyP99Nanos", "LatencyMaxNanos", "LatencyMeanNanos");

    SchedulerReading {
        processors = List.copyOf(processors);
    }

    /**
     * One P: see the dispatcher's {@code GmpSchedulerMXBean.ProcessorState}.
     *
     * @param running      the task it runs ({@code VT <id> <name>} or {@code task <class>}), or null
     * @param runningNanos how long that task has been running as sysmon saw it; 0: sysmon has not
     *                     looked at it yet; -1: it runs none, or sysmon is off
     */
    record ProcessorRow(int id, String state, int localQueueLength, boolean runnext, long tasksRun,
                        int pendingTimers, String running, long runningNanos) {
    }

    /**
     * The scheduling latency since the scheduler started: about one task in {@code sampleEvery}
     * is timed (0: sampling is off), {@code samples} were.
     */
    record Latency(int sampleEvery, long samples, long p50Nanos, long p99Nanos, long maxNanos, double meanNanos) {
    }

    /** The names among {@link #REQUIRED} that {@code available} lacks, in order. */
    static List<String> missing(Set<String> available) {
        return REQUIRED.stream().filter(a -> !available.contains(a)).toList();
    }

    /** Whether {@code available} has every latency attribute. */
    static boolean hasLatency(Set<String> available) {
        return available.containsAll(LATENCY);
    }

    /**
     * Builds a reading from the attributes of one {@code getAttributes} call.
     *
     * @throws TraceException if a required attribute is missing or not of its type (another
     *         MBean under the scheduler's name, or a release of loom-gmp that changed it)
     */
    static SchedulerReading of(long readAtNanos, long uptimeMillis, AttributeList attributes, boolean withLatency)
            throws TraceException {
        Map<String, Object> values = new HashMap<>();
        for (Attribute a : attributes.asList()) {
            values.put(a.getName(), a.getValue());
        }
        Set<String> absent = new TreeSet<>();
        for (String name : withLatency ? concat(REQUIRED, LATENCY) : REQUIRED) {
            if (!values.containsKey(name)) {
                absent.add(name);
            }
        }
        if (!absent.isEmpty()) {
            throw new TraceException("the scheduler's MXBean did not return " + String.join(", ", absent));
        }
        Values v = new Values(values);
        List<ProcessorRow> rows = new ArrayList<>();
        for (CompositeData p : v.get("Processors", CompositeData[].class)) {
            rows.add(new ProcessorRow(item(p, "id", Integer.class), item(p, "state", String.class),
                    item(p, "localQueueLength", Integer.class), item(p, "runnext", Boolean.class),
                    item(p, "tasksRun", Long.class), item(p, "pendingTimers", Integer.class),
                    p.get("running") == null ? null : item(p, "running", String.class),
                    item(p, "runningNanos", Long.class)));
        }
        Latency latency = !withLatency ? null : new Latency(v.get("LatencySample", Integer.class),
                v.get("LatencySamples", Long.class), v.get("LatencyP50Nanos", Long.class),
                v.get("LatencyP99Nanos", Long.class), v.get("LatencyMaxNanos", Long.class),
                v.get("LatencyMeanNanos", Double.class));
        return new SchedulerReading(readAtNanos, uptimeMillis, v.get("Name", String.class), v.get("Procs", Integer.class),
                v.get("IdleProcs", Integer.class), v.get("MaxCarriers", Integer.class), v.get("Closed", Boolean.class),
                v.get("Carriers", Integer.class), v.get("RunningCarriers", Integer.class),
                v.get("SpinningCarriers", Integer.class), v.get("IdleCarriers", Integer.class),
                v.get("BlockedCarriers", Integer.class), v.get("GlobalQueueLength", Integer.class),
                v.get("PendingTimers", Integer.class), v.get("TasksRun", Long.class), v.get("Steals", Long.class),
                v.get("GlobalGrabs", Long.class), v.get("FairnessTickGrabs", Long.class),
                v.get("PreemptRequests", Long.class), v.get("Handoffs", Long.class), v.get("Parks", Long.class),
                v.get("TimersFired", Long.class), v.get("Failures", Long.class), v.get("SchedtraceLine", String.class),
                rows, latency);
    }

    /** Every attribute to ask for. */
    static String[] attributeNames(boolean withLatency) {
        return (withLatency ? concat(REQUIRED, LATENCY) : REQUIRED).toArray(String[]::new);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static <T> T item(CompositeData row, String key, Class<T> type) throws TraceException {
        Object value = row.containsKey(key) ? row.get(key) : null;
        if (!type.isInstance(value)) {
            throw new TraceException("the scheduler's MXBean gave Processors." + key + " = " + value + ", not a "
                    + type.getSimpleName());
        }
        return type.cast(value);
    }

    /** The attributes by name, each checked against the type the MXBean declares for it. */
    private record Values(Map<String, Object> byName) {
        <T> T get(String name, Class<T> type) throws TraceException {
            Object value = byName.get(name);
            if (!type.isInstance(value)) {
                throw new TraceException("the scheduler's MXBean gave " + name + " = " + value + ", not a "
                        + type.getSimpleName());
            }
            return type.cast(value);
        }
    }
}
