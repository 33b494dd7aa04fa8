package io.loomgmp.bridge;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import jdk.management.VirtualThreadSchedulerMXBean;

import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.util.function.Supplier;

/**
 * The JDK's own {@link VirtualThreadSchedulerMXBean}, {@code jdk.management:type=VirtualThreadScheduler},
 * answered by the agent's GMP scheduler: the platform MBean server gets this from
 * {@code VirtualThreadSchedulerImpls.create()} once {@link VirtualThreadSchedulerImplsRewriter} has
 * prefixed it. Each figure is read from a fresh {@link GmpScheduler#snapshot()}:
 * <ul>
 *   <li>parallelism: the Ps ({@link GmpScheduler#procs()}); setting it resizes them
 *       ({@link GmpScheduler#setProcs}, which throws {@code IllegalArgumentException} outside
 *       1 to maxPoolSize, as the interface says);</li>
 *   <li>pool size: the carriers alive;</li>
 *   <li>mounted virtual threads: the tasks running now, on a P or on a carrier whose P was handed
 *       off while it blocked;</li>
 *   <li>queued virtual threads: the tasks waiting to run, on the global queue and in the Ps'
 *       rings and runnext slots (not the sleeping ones: those wait on timers).</li>
 * </ul>
 * Loaded only when the platform MBean server asks for it, through {@link Maker}, which the agent
 * installs in the hook at start-up without loading this class or {@code jdk.management}.
 */
final class VirtualThreadSchedulerView implements VirtualThreadSchedulerMXBean {
    static final String OBJECT_NAME = "jdk.management:type=VirtualThreadScheduler";

    /** The hook's maker of the view (not a lambda: it is made in premain). */
    static final class Maker implements Supplier<Object> {
        private final GmpScheduler scheduler;

        Maker(GmpScheduler scheduler) {
            this.scheduler = scheduler;
        }

        @Override
        public Object get() {
            return new VirtualThreadSchedulerView(scheduler);
        }
    }

    private final GmpScheduler scheduler;

    VirtualThreadSchedulerView(GmpScheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Override
    public int getParallelism() {
        return scheduler.procs();
    }

    @Override
    public void setParallelism(int size) {
        scheduler.setProcs(size);
    }

    @Override
    public int getPoolSize() {
        return scheduler.snapshot().carriers();
    }

    @Override
    public int getMountedVirtualThreadCount() {
        return mounted(scheduler.snapshot());
    }

    @Override
    public long getQueuedVirtualThreadCount() {
        return queued(scheduler.snapshot());
    }

    /** Tasks running in {@code s}: on a P, or on a carrier whose P was handed off. */
    static int mounted(SchedulerSnapshot s) {
        int running = s.blockedCarriers();
        for (SchedulerSnapshot.ProcessorSnapshot p : s.processors()) {
            if (p.running() != null) {
                running++;
            }
        }
        return running;
    }

    /** Tasks waiting to run in {@code s}: the global queue and every P's ring and runnext. */
    static long queued(SchedulerSnapshot s) {
        long queued = s.globalQueueLength();
        for (SchedulerSnapshot.ProcessorSnapshot p : s.processors()) {
            queued += p.runnable();
        }
        return queued;
    }

    @Override
    public ObjectName getObjectName() {
        try {
            return new ObjectName(OBJECT_NAME);
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    /** As the JDK's own: {@code [parallelism=2, size=3, mounted=2, queued=14]}, then GMP's line. */
    @Override
    public String toString() {
        SchedulerSnapshot s = scheduler.snapshot();
        return "[parallelism=" + s.procs() + ", size=" + s.carriers() + ", mounted=" + mounted(s)
                + ", queued=" + queued(s) + "] " + scheduler;
    }
}
