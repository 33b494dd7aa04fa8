package io.loomgmp.dispatcher;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.Descriptor;
import javax.management.ImmutableDescriptor;
import javax.management.InvalidAttributeValueException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanException;
import javax.management.MBeanInfo;
import javax.management.ReflectionException;
import javax.management.StandardMBean;
import javax.management.openmbean.SimpleType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import java.util.function.ToLongFunction;

/**
 * The {@link GmpSchedulerMXBean} of one scheduler: the MXBean of that interface
 * ({@link StandardMBean} does the MXBean type mapping) plus one read-only attribute per
 * {@link SchedulerMetric}, which this class adds to the MBean info and answers itself, so that
 * the attribute list of the figures comes from the enum. Each attribute read takes a snapshot
 * and reads one figure of it. A snapshot per attribute costs a few reads per P, which is nothing
 * at the rate a JMX console polls; caching would only make two reads of the same attribute
 * disagree with {@link GmpScheduler#snapshot()} for no gain. Holds the scheduler strongly: the
 * MBean server holds this view until {@link GmpScheduler#close()} unregisters it.
 *
 * <p>The figures' attributes are built as the MXBean mapping builds those of an {@code int} or
 * {@code long} getter (type, {@code openType} and {@code originalType} in the descriptor), so a
 * JMX client cannot tell them from the interface's; they carry the metric's description. Any
 * thread: the MBean server calls it from JMX connector threads; it keeps no state of its own.
 */
final class SchedulerMXBeanView extends StandardMBean implements GmpSchedulerMXBean {
    private final GmpScheduler scheduler;
    /** The interface's attributes and the metrics'; built once, since neither changes. */
    private final MBeanInfo info;

    SchedulerMXBeanView(GmpScheduler scheduler) {
        super(GmpSchedulerMXBean.class, true);
        this.scheduler = scheduler;
        this.info = withMetrics(super.getMBeanInfo());
    }

    /** {@code interfaceInfo} with one attribute per metric after the interface's own. */
    private static MBeanInfo withMetrics(MBeanInfo interfaceInfo) {
        List<MBeanAttributeInfo> attributes = new ArrayList<>(List.of(interfaceInfo.getAttributes()));
        for (SchedulerMetric metric : SchedulerMetric.values()) {
            attributes.add(attributeInfo(metric));
        }
        return new MBeanInfo(interfaceInfo.getClassName(), interfaceInfo.getDescription(),
                attributes.toArray(MBeanAttributeInfo[]::new), interfaceInfo.getConstructors(),
                interfaceInfo.getOperations(), interfaceInfo.getNotifications(), interfaceInfo.getDescriptor());
    }

    /** What the MXBean mapping makes of {@code int getX()} or {@code long getX()}, with a description. */
    private static MBeanAttributeInfo attributeInfo(SchedulerMetric metric) {
        boolean gauge = metric.kind() == SchedulerMetric.Kind.GAUGE;
        String type = gauge ? "int" : "long";
        Descriptor descriptor = new ImmutableDescriptor(
                Map.of("openType", gauge ? SimpleType.INTEGER : SimpleType.LONG, "originalType", type));
        return new MBeanAttributeInfo(metric.attributeName(), type, metric.description(), true, false, false,
                descriptor);
    }

    /** The metric named {@code attribute}, or null. */
    private static SchedulerMetric metricNamed(String attribute) {
        for (SchedulerMetric metric : SchedulerMetric.values()) {
            if (metric.attributeName().equals(attribute)) {
                return metric;
            }
        }
        return null;
    }

    /** A gauge as an {@code Integer}, a counter as a {@code Long}: the types {@link #attributeInfo} declares. */
    private static Object valueOf(SchedulerMetric metric, SchedulerSnapshot snapshot) {
        long value = snapshot.get(metric);
        return metric.kind() == SchedulerMetric.Kind.GAUGE ? (Object) (int) value : (Object) value;
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        return info;
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException, MBeanException, ReflectionException {
        SchedulerMetric metric = metricNamed(attribute);
        return metric == null ? super.getAttribute(attribute) : valueOf(metric, scheduler.snapshot());
    }

    /**
     * Each attribute as {@link #getAttribute} reads it, in the order asked; one that cannot be
     * read is left out, as {@link javax.management.DynamicMBean#getAttributes} says.
     */
    @Override
    public AttributeList getAttributes(String[] attributes) {
        AttributeList values = new AttributeList(attributes.length);
        for (String attribute : attributes) {
            try {
                values.add(new Attribute(attribute, getAttribute(attribute)));
            } catch (JMException | RuntimeException unreadable) {
                // Left out: the caller sees which are missing.
            }
        }
        return values;
    }

    @Override
    public void setAttribute(Attribute attribute)
            throws AttributeNotFoundException, InvalidAttributeValueException, MBeanException, ReflectionException {
        if (metricNamed(attribute.getName()) != null) {
            throw new AttributeNotFoundException("Read-only attribute: " + attribute.getName());
        }
        super.setAttribute(attribute);
    }

    /** Every attribute is read-only: none is set, as the MXBean mapping answers for getters. */
    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        AttributeList set = new AttributeList();
        for (Attribute attribute : attributes.asList()) {
            try {
                setAttribute(attribute);
                set.add(attribute);
            } catch (JMException | RuntimeException notSet) {
                // Left out, as DynamicMBean#setAttributes says.
            }
        }
        return set;
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
    public int getMaxCarriers() {
        return scheduler.maxCarriers();
    }

    @Override
    public boolean isClosed() {
        return scheduler.isClosed();
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
