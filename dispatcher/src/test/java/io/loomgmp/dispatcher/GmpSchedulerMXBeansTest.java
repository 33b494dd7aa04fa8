package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The MXBean of a local scheduler, read the way JConsole reads it: through the platform MBean server. */
class GmpSchedulerMXBeansTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @Test
    void attributesThroughTheMBeanServerMatchTheSnapshot() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).maxCarriers(5).name("mx-attributes").latencySample(1)
                .build()) {
            ObjectName name = GmpSchedulerMXBeans.register(s);
            assertEquals(new ObjectName("io.loomgmp:type=Scheduler,name=mx-attributes"), name);

            int tasks = 50;
            CountDownLatch done = new CountDownLatch(tasks);
            for (int i = 0; i < tasks; i++) {
                s.execute(done::countDown);
            }
            Probe.await(done, Probe.BOUND, s, "the tasks");
            // Quiescent: every P and every carrier idle, so the figures stand still while read.
            Probe.awaitTrue(() -> {
                SchedulerSnapshot now = s.snapshot();
                return now.idleProcs() == 2 && now.idleCarriers() == now.carriers();
            }, Probe.BOUND, s, "every P and carrier idle");

            SchedulerSnapshot snapshot = s.snapshot();
            Map<String, Object> attributes = new HashMap<>();
            for (MBeanAttributeInfo info : SERVER.getMBeanInfo(name).getAttributes()) {
                assertTrue(info.isReadable() && !info.isWritable(), info.getName() + " is read-only");
                attributes.put(info.getName(), SERVER.getAttribute(name, info.getName()));
            }
            // Every P idle; Processors while a task runs: processorsShowWhatEachPRuns.
            CompositeData[] processors = (CompositeData[]) attributes.remove("Processors");
            assertEquals(2, processors.length);
            for (CompositeData p : processors) {
                assertEquals("idle", p.get("state"), p.toString());
            }
            assertEquals("mx-attributes", attributes.get("Name"));
            assertEquals(2, attributes.get("Procs"));
            assertEquals(5, attributes.get("MaxCarriers"));
            assertEquals(false, attributes.get("Closed"));
            assertEquals(0, attributes.get("LocalQueueLength"));
            assertArrayEquals(new int[] {0, 0}, (int[]) attributes.get("LocalQueueLengths"));
            assertEquals((long) tasks, attributes.get("TasksRun"));
            // Every figure, as the snapshot has it: an int for a gauge, a long for a counter.
            for (SchedulerMetric metric : SchedulerMetric.values()) {
                long value = snapshot.get(metric);
                assertEquals(metric.kind() == SchedulerMetric.Kind.GAUGE ? (Object) (int) value : (Object) value,
                        attributes.remove(metric.attributeName()), metric.toString());
            }
            String line = (String) attributes.get("SchedtraceLine");
            assertTrue(line.matches("SCHED \\d+ms: gomaxprocs=2 idleprocs=2 threads=\\d+ spinningthreads=0"
                    + " idlethreads=\\d+ runqueue=0 \\[0 0] latp50=\\S+ latp99=\\S+"), line);
            LatencyHistogram waits = snapshot.latency().all();
            assertEquals(1, attributes.get("LatencySample"));
            assertEquals((long) tasks, attributes.get("LatencySamples"), "sampling 1: every task timed");
            assertEquals(waits.count(), attributes.get("LatencySamples"));
            assertEquals(waits.percentileNanos(0.5), attributes.get("LatencyP50Nanos"));
            assertEquals(waits.percentileNanos(0.99), attributes.get("LatencyP99Nanos"));
            assertEquals(waits.maxNanos(), attributes.get("LatencyMaxNanos"));
            assertEquals(waits.meanNanos(), attributes.get("LatencyMeanNanos"));
            // An array of records is an array of composites to JMX: what JConsole shows as a table.
            CompositeData[] bySource = (CompositeData[]) attributes.get("LatencyBySource");
            assertEquals(LatencyTotals.SOURCES, Arrays.stream(bySource).map(c -> (String) c.get("source")).toList());
            long samples = 0;
            for (CompositeData row : bySource) {
                LatencyHistogram source = snapshot.latency().source((String) row.get("source"));
                assertEquals(source.count(), row.get("samples"));
                assertEquals(source.percentileNanos(0.99), row.get("p99Nanos"));
                assertEquals(source.maxNanos(), row.get("maxNanos"));
                samples += (long) row.get("samples");
            }
            assertEquals(tasks, samples);
            assertEquals(13, attributes.size(), "every attribute checked above: " + attributes.keySet());

            // JConsole reads several at once; a typed proxy is what an application would use.
            AttributeList some = SERVER.getAttributes(name, new String[] {"Procs", "TasksRun"});
            assertEquals(Arrays.asList(new Attribute("Procs", 2), new Attribute("TasksRun", (long) tasks)),
                    some.asList());
            GmpSchedulerMXBean proxy = JMX.newMXBeanProxy(SERVER, name, GmpSchedulerMXBean.class);
            assertEquals(5, proxy.getMaxCarriers());
            assertEquals(LatencyTotals.SOURCES, Arrays.stream(proxy.getLatencyBySource())
                    .map(GmpSchedulerMXBean.SourceLatency::source).toList(), "the proxy rebuilds the records");
        }
    }

    /** Two getters as the MXBean mapping publishes them: what each metric's attribute must look like. */
    public interface ReferenceMXBean {
        int getGauge();

        long getCounter();
    }

    @Test
    void everyMetricIsAnAttributeAsAGetterWouldMakeIt() throws Exception {
        ObjectName referenceName = new ObjectName("io.loomgmp.test:type=Reference");
        SERVER.registerMBean(new ReferenceMXBean() {
            @Override
            public int getGauge() {
                return 0;
            }

            @Override
            public long getCounter() {
                return 0;
            }
        }, referenceName);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("mx-metrics").build()) {
            ObjectName name = GmpSchedulerMXBeans.register(s);
            Map<String, MBeanAttributeInfo> reference = new HashMap<>();
            for (MBeanAttributeInfo info : SERVER.getMBeanInfo(referenceName).getAttributes()) {
                reference.put(info.getName(), info);
            }
            Map<String, MBeanAttributeInfo> shown = new HashMap<>();
            for (MBeanAttributeInfo info : SERVER.getMBeanInfo(name).getAttributes()) {
                assertEquals(null, shown.put(info.getName(), info), "one attribute per name: " + info.getName());
            }
            SchedulerSnapshot snapshot = s.snapshot();
            for (SchedulerMetric metric : SchedulerMetric.values()) {
                MBeanAttributeInfo info = shown.remove(metric.attributeName());
                assertTrue(info != null, metric + " is not an attribute");
                MBeanAttributeInfo like = reference.get(metric.kind() == SchedulerMetric.Kind.GAUGE ? "Gauge" : "Counter");
                assertEquals(like.getType(), info.getType(), metric.toString());
                assertEquals(like.getDescriptor(), info.getDescriptor(), metric.toString());
                assertTrue(info.isReadable() && !info.isWritable() && !info.isIs(), metric.toString());
                assertEquals(metric.description(), info.getDescription());
                Object value = SERVER.getAttribute(name, metric.attributeName());
                assertEquals(metric.kind() == SchedulerMetric.Kind.GAUGE ? Integer.class : Long.class, value.getClass());
                if (metric.kind() == SchedulerMetric.Kind.COUNTER || metric == SchedulerMetric.PROCS) {
                    assertTrue(((Number) value).longValue() >= snapshot.get(metric), metric.toString());
                }
                assertThrows(javax.management.AttributeNotFoundException.class,
                        () -> SERVER.setAttribute(name, new Attribute(metric.attributeName(), value)));
            }
            // What is left are the interface's getters; none of them is a metric under another name.
            assertEquals(java.util.Set.of("Name", "MaxCarriers", "Closed", "LocalQueueLength", "LocalQueueLengths",
                    "Processors", "LatencySample", "LatencySamples", "LatencyP50Nanos", "LatencyP99Nanos",
                    "LatencyMaxNanos", "LatencyMeanNanos", "LatencyBySource", "SchedtraceLine"), shown.keySet());
            assertTrue(SERVER.isInstanceOf(name, GmpSchedulerMXBean.class.getName()));
            assertEquals(SERVER.getMBeanInfo(referenceName).getDescriptor().getFieldValue("mxbean"),
                    SERVER.getMBeanInfo(name).getDescriptor().getFieldValue("mxbean"));
            assertEquals(GmpSchedulerMXBean.class.getName(),
                    SERVER.getMBeanInfo(name).getDescriptor().getFieldValue("interfaceClassName"));
            assertThrows(javax.management.AttributeNotFoundException.class, () -> SERVER.getAttribute(name, "NoSuch"));
        } finally {
            SERVER.unregisterMBean(referenceName);
        }
    }

    @Test
    void localQueueLengthsCountTheRingAndRunnextOfEachP() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("mx-queues").build()) {
            ObjectName name = GmpSchedulerMXBeans.register(s);
            CountDownLatch queued = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(3);
            s.execute(() -> {
                s.execute(done::countDown);                     // ring
                s.execute(done::countDown);                     // ring
                s.submit(done::countDown, Placement.RUNNEXT);   // runnext
                queued.countDown();
                // The one P stays busy: nothing can run the three until this task ends.
                long deadline = System.nanoTime() + Probe.BOUND.toNanos();
                while (release.getCount() > 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            });
            Probe.await(queued, Probe.BOUND, s, "three tasks queued");
            try {
                assertArrayEquals(new int[] {3}, (int[]) SERVER.getAttribute(name, "LocalQueueLengths"));
                assertEquals(3, SERVER.getAttribute(name, "LocalQueueLength"));
            } finally {
                release.countDown();
            }
            Probe.await(done, Probe.BOUND, s, "the queued tasks");
        }
    }

    @Test
    void processorsShowWhatEachPRuns() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("mx-processors").build()) {
            ObjectName name = GmpSchedulerMXBeans.register(s);
            CountDownLatch queued = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(2);
            s.execute(() -> {
                s.execute(done::countDown);                     // ring
                s.submit(done::countDown, Placement.RUNNEXT);   // runnext
                queued.countDown();
                // Spins rather than waits: a task blocked with work queued behind it would have
                // its P handed off by sysmon, and the P would then run the queued tasks.
                long deadline = System.nanoTime() + Probe.BOUND.toNanos();
                while (release.getCount() > 0 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            });
            Probe.await(queued, Probe.BOUND, s, "two tasks queued");
            try {
                // Sysmon looks at a busy P at least every 10 ms; until its first look the time is 0.
                Probe.awaitTrue(() -> s.snapshot().processors().getFirst().runningNanos() > 0, Probe.BOUND, s,
                        "sysmon to see the task running");
                CompositeData[] processors = (CompositeData[]) SERVER.getAttribute(name, "Processors");
                assertEquals(1, processors.length);
                CompositeData p = processors[0];
                assertEquals(0, p.get("id"));
                assertEquals("running", p.get("state"));
                assertEquals(1, p.get("localQueueLength"));
                assertEquals(true, p.get("runnext"));
                assertEquals(1L, p.get("tasksRun"));
                assertEquals(0, p.get("pendingTimers"));
                assertEquals("task " + GmpSchedulerMXBeansTest.class.getName() + " lambda", p.get("running"));
                assertTrue((long) p.get("runningNanos") > 0, p.toString());
                GmpSchedulerMXBean.ProcessorState typed =
                        JMX.newMXBeanProxy(SERVER, name, GmpSchedulerMXBean.class).getProcessors()[0];
                assertEquals("running", typed.state(), "the proxy rebuilds the records");
            } finally {
                release.countDown();
            }
            Probe.await(done, Probe.BOUND, s, "the queued tasks");
        }
    }

    @Test
    void closeUnregistersTheMXBean() throws Exception {
        GmpScheduler s = GmpScheduler.builder().procs(1).name("mx-close").build();
        ObjectName name = GmpSchedulerMXBeans.register(s);
        assertTrue(SERVER.isRegistered(name));
        s.close();
        assertFalse(SERVER.isRegistered(name));
        s.close(); // idempotent, and nothing left to unregister
        assertThrows(IllegalStateException.class, () -> GmpSchedulerMXBeans.register(s));
        // The name is free again for another scheduler.
        try (GmpScheduler next = GmpScheduler.builder().procs(1).name("mx-close").build()) {
            assertEquals(name, GmpSchedulerMXBeans.register(next));
        }
        assertFalse(SERVER.isRegistered(name));
    }

    @Test
    void aTakenNameIsAClearError() {
        try (GmpScheduler first = GmpScheduler.builder().procs(1).name("mx-twice").build()) {
            GmpSchedulerMXBeans.register(first);
            GmpScheduler second = GmpScheduler.builder().procs(1).name("mx-twice").build();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> GmpSchedulerMXBeans.register(second));
            assertEquals("an MBean named io.loomgmp:type=Scheduler,name=mx-twice is already registered;"
                    + " give each scheduler its own name (GmpScheduler.builder().name(...))", e.getMessage());
            // The failed registration left the first in place, and closing the second does not remove it.
            second.close();
            assertTrue(SERVER.isRegistered(GmpSchedulerMXBeans.objectName("mx-twice")));
        }
        assertFalse(SERVER.isRegistered(GmpSchedulerMXBeans.objectName("mx-twice")));
    }

    @Test
    void aNameWithObjectNameSyntaxIsQuoted() throws Exception {
        String odd = "orders,type=x:\"*?\nend";
        ObjectName name = GmpSchedulerMXBeans.objectName(odd);
        assertFalse(name.isPattern());
        assertEquals("Scheduler", name.getKeyProperty("type"));
        assertEquals(odd, ObjectName.unquote(name.getKeyProperty("name")));
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name(odd).build()) {
            assertEquals(name, GmpSchedulerMXBeans.register(s));
            assertEquals(odd, SERVER.getAttribute(name, "Name"));
        }
        assertEquals("plain-name_1.2", GmpSchedulerMXBeans.objectName("plain-name_1.2").getKeyProperty("name"),
                "a name that needs no quotes gets none");
    }
}
