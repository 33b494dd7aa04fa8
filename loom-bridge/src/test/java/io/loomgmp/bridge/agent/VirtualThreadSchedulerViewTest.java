package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import jdk.management.VirtualThreadSchedulerMXBean;
import org.junit.jupiter.api.Test;

import javax.management.Attribute;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InvalidAttributeValueException;
import javax.management.JMX;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.ReflectionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link VirtualThreadSchedulerView} registered as {@code ManagementFactory} registers a platform
 * object that is a DynamicMBean (as itself), in an MBean server of its own: it is an instance of
 * the interface for the server, a JMX proxy reads and sets GMP through it, its MBeanInfo is the
 * JDK's MXBean description of the interface, and bad requests fail as JMX says, leaving GMP as it
 * was. (The platform server and both ways of reaching the bean, with and without the agent:
 * {@code VirtualThreadSchedulerMXBeanIT}.)
 */
class VirtualThreadSchedulerViewTest {
    private static final String INTERFACE = VirtualThreadSchedulerMXBean.class.getName();

    @Test
    void registeredAsItselfItIsTheInterfacesMXBeanAndAProxyDrivesGmp() throws Exception {
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(2).name("view-test").build()) {
            VirtualThreadSchedulerView view = new VirtualThreadSchedulerView(scheduler);
            ObjectName name = view.getObjectName();
            assertEquals(VirtualThreadSchedulerView.OBJECT_NAME, name.toString());
            assertInstanceOf(DynamicMBean.class, view, "ManagementFactory registers it as itself");
            server.registerMBean(view, name);
            assertTrue(server.isInstanceOf(name, INTERFACE));

            MBeanInfo info = server.getMBeanInfo(name);
            assertEquals(VirtualThreadSchedulerView.class.getName(), info.getClassName());
            assertEquals(INTERFACE, info.getDescriptor().getFieldValue("interfaceClassName"));
            assertEquals("true", info.getDescriptor().getFieldValue("mxbean"));

            VirtualThreadSchedulerMXBean proxy = JMX.newMXBeanProxy(server, name, VirtualThreadSchedulerMXBean.class);
            assertEquals(2, proxy.getParallelism());
            proxy.setParallelism(3);
            assertEquals(3, scheduler.procs());
            assertEquals(3, server.getAttribute(name, "Parallelism"));
            assertEquals(scheduler.snapshot().carriers(), proxy.getPoolSize());
            assertEquals(0, proxy.getMountedVirtualThreadCount(), "nothing runs");
            assertEquals(0L, proxy.getQueuedVirtualThreadCount(), "nothing waits");
            assertEquals(name, proxy.getObjectName());
        }
    }

    @Test
    void badRequestsFailAsJmxSaysAndLeaveGmpAsItWas() throws Exception {
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(2).name("view-test").build()) {
            VirtualThreadSchedulerView view = new VirtualThreadSchedulerView(scheduler);
            ObjectName name = view.getObjectName();
            server.registerMBean(view, name);
            VirtualThreadSchedulerMXBean proxy = JMX.newMXBeanProxy(server, name, VirtualThreadSchedulerMXBean.class);

            // GmpScheduler.setProcs's IllegalArgumentException reaches the proxy's caller, as the
            // JDK's own bean's does (the proxy unwraps the server's RuntimeMBeanException).
            assertThrows(IllegalArgumentException.class, () -> proxy.setParallelism(0));
            assertThrows(IllegalArgumentException.class, () -> view.setParallelism(0));
            assertEquals(2, scheduler.procs());

            assertThrows(AttributeNotFoundException.class, () -> server.getAttribute(name, "Carriers"));
            assertThrows(AttributeNotFoundException.class, () -> server.setAttribute(name, new Attribute("PoolSize", 4)));
            assertThrows(InvalidAttributeValueException.class, () -> server.setAttribute(name, new Attribute("Parallelism", "four")));
            assertThrows(ReflectionException.class, () -> server.invoke(name, "shutdown", new Object[0], new String[0]));
            assertEquals(2, scheduler.procs());
        }
    }
}
