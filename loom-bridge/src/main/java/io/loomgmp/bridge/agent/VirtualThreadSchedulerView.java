package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import io.loomgmp.dispatcher.loom.LoomSupport;
import jdk.management.VirtualThreadSchedulerMXBean;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InvalidAttributeValueException;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.ReflectionException;
import javax.management.StandardMBean;
import java.util.function.Supplier;

/**
 * The JDK's own {@link VirtualThreadSchedulerMXBean}, {@code jdk.management:type=VirtualThreadScheduler},
 * answered by the agent's GMP scheduler: the platform MBean server gets this from
 * {@code VirtualThreadSchedulerImpls.create()} once {@link VirtualThreadSchedulerImplsRewriter} has
 * prefixed it. Each figure is read without a lock, exact at its own instant:
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
 *
 * <p>Why it is also a {@link DynamicMBean}: {@code ManagementFactory} registers a platform object
 * that is not one inside a {@code StandardMBean} of its own, a class of {@code java.management}.
 * The MBean server then answers {@code isInstanceOf(name, "jdk.management.VirtualThreadSchedulerMXBean")}
 * by loading the class name that wrapper reports, this class's, with the wrapper's class loader,
 * the boot loader, which cannot see the agent: the answer is false, and
 * {@code ManagementFactory.newPlatformMXBeanProxy}, the way JMX consoles and monitoring agents
 * reach the bean, throws {@code IllegalArgumentException} ("... is not an instance of ..."). A
 * DynamicMBean is registered as itself, so the server asks this class's own loader, which sees
 * both this class and the interface. The JMX work (the MBeanInfo, the MXBean type mapping,
 * exceptions) is the JDK's: a {@link StandardMBean} of the interface, as {@code ManagementFactory}
 * would have made, to which the DynamicMBean methods forward; an exception from a figure or
 * from {@code setParallelism} reaches the JMX client as it would from the JDK's own bean. Making
 * that StandardMBean fails only for an interface that is not a compliant MXBean interface, and
 * then {@code ManagementFactory}'s own wrapping of the JDK's bean would fail the same way.
 */
final class VirtualThreadSchedulerView implements VirtualThreadSchedulerMXBean, DynamicMBean {
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
    /** This view as the JDK's MXBean of the interface: what the MBean server calls goes through it. */
    private final StandardMBean mxbean;

    VirtualThreadSchedulerView(GmpScheduler scheduler) {
        this.scheduler = scheduler;
        // Last, as this escapes: StandardMBean introspects the interface and keeps the reference,
        // calling nothing on it until the MBean server does.
        this.mxbean = new StandardMBean(this, VirtualThreadSchedulerMXBean.class, true);
    }

    @Override
    public int getParallelism() {
        return scheduler.procs();
    }

    @Override
    public void setParallelism(int size) {
        scheduler.setProcs(size);
    }

    // The three figures below are read directly, in microseconds, not from a snapshot (a few
    // hundred): the same counts, as racy, and a JMX client that reads one just after starting
    // threads sees them before the scheduler has run them.

    @Override
    public int getPoolSize() {
        return LoomSupport.carriers(scheduler);
    }

    @Override
    public int getMountedVirtualThreadCount() {
        return LoomSupport.runningTasks(scheduler);
    }

    @Override
    public long getQueuedVirtualThreadCount() {
        return LoomSupport.queuedTasks(scheduler);
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

    @Override
    public MBeanInfo getMBeanInfo() {
        return mxbean.getMBeanInfo();
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException, MBeanException, ReflectionException {
        return mxbean.getAttribute(attribute);
    }

    @Override
    public void setAttribute(Attribute attribute)
            throws AttributeNotFoundException, InvalidAttributeValueException, MBeanException, ReflectionException {
        mxbean.setAttribute(attribute);
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        return mxbean.getAttributes(attributes);
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return mxbean.setAttributes(attributes);
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) throws MBeanException, ReflectionException {
        return mxbean.invoke(actionName, params, signature);
    }

    /** As the JDK's own: {@code [parallelism=2, size=3, mounted=2, queued=14]}, then GMP's line. */
    @Override
    public String toString() {
        SchedulerSnapshot s = scheduler.snapshot();
        return "[parallelism=" + s.procs() + ", size=" + s.carriers() + ", mounted=" + mounted(s)
                + ", queued=" + queued(s) + "] " + scheduler;
    }
}
