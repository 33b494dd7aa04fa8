package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.probe.MXBeanProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agent's MXBean in a forked JVM, read through the platform MBean server as a console would. */
class SchedulerMXBeanRegistrationIT {
    @Test
    void theMXBeanAppearsOnceThePlatformServerExistsAndShowsTheScheduler() {
        Forked jvm = ForkedJvm.withAgent("parallelism=3", List.of(), MXBeanProbe.class, "10000");
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(0, jvm.longValue("serversAtStart"), "the agent did not create the platform MBean server\n" + jvm);
        assertEquals("true", jvm.value("registrationThreadAtStart"), jvm.toString());
        assertEquals("true", jvm.value("registered"), jvm.toString());
        assertTrue(jvm.longValue("waitedMillis") <= 2 * SchedulerMXBeanRegistration.POLL_MILLIS + 500,
                "registered within a poll of the server's creation\n" + jvm);
        assertEquals("gmp", jvm.value("Name"));
        assertEquals(3, jvm.longValue("Procs"));
        assertTrue(jvm.longValue("TasksRun") >= MXBeanProbe.THREADS, jvm.toString());
        assertTrue(jvm.longValue("Carriers") >= 1, jvm.toString());
        assertTrue(jvm.value("SchedtraceLine").matches("SCHED \\d+ms: gomaxprocs=3 .* \\[\\d+ \\d+ \\d+] latp50=\\S+ latp99=\\S+"), jvm.toString());
        assertTrue(jvm.value("LocalQueueLengths").matches("\\[\\d+, \\d+, \\d+]"), jvm.toString());
        assertEquals("false", jvm.value("registrationThreadAtEnd"), "the thread ends once it has registered\n" + jvm);
        assertEquals("", jvm.stderr(), "nothing printed when all is well");
    }

    @Test
    void thePlatformServerIsFoundOnlyOnceCreated() {
        // A fresh JVM: in the test JVM something may have made the platform server already.
        Forked jvm = ForkedJvm.withoutAgent(List.of(), PlatformServerProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("false", jvm.value("beforeCreation"), jvm.toString());
        assertEquals("false", jvm.value("besideAnotherKeptServer"), "an application's own server is not the platform's\n" + jvm);
        assertEquals("true", jvm.value("afterCreation"), jvm.toString());
    }

    @Test
    void mxbeanFalseRegistersNothingAndStartsNoThread() {
        long wait = 2 * SchedulerMXBeanRegistration.POLL_MILLIS + 500;
        Forked jvm = ForkedJvm.withAgent(null, List.of("-Dgmp.mxbean=false"), MXBeanProbe.class, String.valueOf(wait));
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("false", jvm.value("registrationThreadAtStart"), jvm.toString());
        assertEquals("false", jvm.value("registered"), jvm.toString());
        assertEquals("", jvm.stderr());
    }
}
