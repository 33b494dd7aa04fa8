package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SchedulerMXBeanRegistrationTest {
    @Test
    void registersSilentlyOrPrintsOneLineWhenTheNameIsTaken() throws Exception {
        // A server of its own (not kept by MBeanServerFactory), so that no other test sees it.
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        try (GmpScheduler first = GmpScheduler.builder().procs(2).name("gmp").build();
             GmpScheduler second = GmpScheduler.builder().procs(1).name("gmp").build()) {
            assertTrue(SchedulerMXBeanRegistration.register(first, server, errStream));
            assertEquals("", err.toString(StandardCharsets.UTF_8));
            ObjectName name = new ObjectName("io.loomgmp:type=Scheduler,name=gmp");
            assertEquals(2, server.getAttribute(name, "Procs"));

            assertFalse(SchedulerMXBeanRegistration.register(second, server, errStream));
            assertEquals("loom-gmp: the scheduler's MXBean is not registered, so JConsole and JMC will not show it:"
                    + " an MBean named io.loomgmp:type=Scheduler,name=gmp is already registered"
                    + " (-Dgmp.mxbean=false turns this off)" + System.lineSeparator(), err.toString(StandardCharsets.UTF_8));
            assertEquals(2, server.getAttribute(name, "Procs"), "the first stays");
        }
    }
}
