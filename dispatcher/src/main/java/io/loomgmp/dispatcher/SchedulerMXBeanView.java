package io.loomgmp.dispatcher;

import java.lang.management.ManagementFactory;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The {@link GmpSchedulerMXBean} of one scheduler: each getter takes a snapshot and reads one
 * figure of it. A snapshot per attribute costs a few reads per P, which is nothing at the rate
 * a JMX console polls; caching would only make two reads of the same attribute disagree with
 * {@link GmpScheduler#snapshot()} for no gain. Holds the scheduler strongly: the MBean server
 * holds this view until {@link GmpScheduler#close()} unregisters it.
 */
final class SchedulerMXBeanView implements GmpSchedulerMXBean {
    private final GmpScheduler scheduler;

    SchedulerMXBeanView(GmpScheduler scheduler) {
        this.scheduler = scheduler;
    }

    private int intOf(ToIntFunction<SchedulerSnapshot> figure) {
        return figure.applyAsInt(scheduler.snapshot());
    }

    private long longOf(ToLongFunction<SchedulerSnapshot> figure) {
        return figure.applyAsLong(scheduler.snapshot());
    }

    @Override
    public String getName() {
        return scheduler.name();
    }

    @Override
    public int getProcs() {
        return scheduler.procs();
    }

    @Override
    public int getIdleProcs() {
        return intOf(SchedulerSnapshot::idleProcs);
    }

    @Override
    public int getMaxCarriers() {
        return scheduler.maxCarriers();
    }

    @Override
    public boolean isClosed() {
        return scheduler.isClosed();
    }

    @Override
    public int getCarriers() {
        return intOf(SchedulerSnapshot::carriers);
    }

    @Override
    public int getRunningCarriers() {
        return intOf(SchedulerSnapshot::runningCarriers);
    }

    @Override
    public int getSpinningCarriers() {
        return intOf(SchedulerSnapshot::spinningCarriers);
    }

    @Override
    public int getIdleCarriers() {
        return intOf(SchedulerSnapshot::idleCarriers);
    }

    @Override
    public int getBlockedCarriers() {
        return intOf(SchedulerSnapshot::blockedCarriers);
    }

    @Override
    public int getGlobalQueueLength() {
        return intOf(SchedulerSnapshot::globalQueueLength);
    }

    @Override
    public int getLocalQueueLength() {
        return intOf(s -> s.processors().stream().mapToInt(SchedulerSnapshot.ProcessorSnapshot::runnable).sum());
    }

    @Override
    public int[] getLocalQueueLengths() {
        return scheduler.snapshot().processors().stream()
                .mapToInt(SchedulerSnapshot.ProcessorSnapshot::runnable).toArray();
    }

    @Override
    public ProcessorState[] getProcessors() {
        return scheduler.snapshot().processors().stream().map(ProcessorState::of).toArray(ProcessorState[]::new);
    }

    @Override
    public long getTasksRun() {
        return longOf(SchedulerSnapshot::tasksRun);
    }

    @Override
    public long getRunnextHits() {
        return longOf(SchedulerSnapshot::runnextHits);
    }

    @Override
    public long getLocalPops() {
        return longOf(SchedulerSnapshot::localPops);
    }

    @Override
    public long getGlobalGrabs() {
        return longOf(SchedulerSnapshot::globalGrabs);
    }

    @Override
    public long getFairnessTickGrabs() {
        return longOf(SchedulerSnapshot::fairnessTickGrabs);
    }

    @Override
    public long getSteals() {
        return longOf(SchedulerSnapshot::steals);
    }

    @Override
    public long getStolenTasks() {
        return longOf(SchedulerSnapshot::stolenTasks);
    }

    @Override
    public long getOverflows() {
        return longOf(SchedulerSnapshot::overflows);
    }

    @Override
    public long getParks() {
        return longOf(SchedulerSnapshot::parks);
    }

    @Override
    public long getSpins() {
        return longOf(SchedulerSnapshot::spins);
    }

    @Override
    public long getPreemptRequests() {
        return longOf(SchedulerSnapshot::preemptRequests);
    }

    @Override
    public long getHandoffs() {
        return longOf(SchedulerSnapshot::handoffs);
    }

    @Override
    public int getPendingTimers() {
        return intOf(SchedulerSnapshot::pendingTimers);
    }

    @Override
    public long getTimersFired() {
        return longOf(SchedulerSnapshot::timersFired);
    }

    @Override
    public long getFailures() {
        return longOf(SchedulerSnapshot::failures);
    }

    @Override
    public int getLatencySample() {
        return scheduler.latencySample();
    }

    @Override
    public long getLatencySamples() {
        return longOf(s -> s.latency().all().count());
    }

    @Override
    public long getLatencyP50Nanos() {
        return longOf(s -> s.latency().all().percentileNanos(0.5));
    }

    @Override
    public long getLatencyP99Nanos() {
        return longOf(s -> s.latency().all().percentileNanos(0.99));
    }

    @Override
    public long getLatencyMaxNanos() {
        return longOf(s -> s.latency().all().maxNanos());
    }

    @Override
    public double getLatencyMeanNanos() {
        return scheduler.snapshot().latency().all().meanNanos();
    }

    @Override
    public SourceLatency[] getLatencyBySource() {
        return scheduler.snapshot().latency().bySource().entrySet().stream()
                .map(e -> SourceLatency.of(e.getKey(), e.getValue())).toArray(SourceLatency[]::new);
    }

    /** Timed from the JVM's start, as Go's line is timed from the program's. */
    @Override
    public String getSchedtraceLine() {
        return scheduler.snapshot().schedtraceLine(ManagementFactory.getRuntimeMXBean().getUptime());
    }
}
