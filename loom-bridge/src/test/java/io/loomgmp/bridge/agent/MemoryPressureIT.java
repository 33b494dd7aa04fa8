package io.loomgmp.bridge.agent;

import example.app.MonitorEnterOomeProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.RepeatedTest;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A virtual thread that filled the heap and then blocks on a monitor is woken and runs to its
 * end under the agent, in the three shapes of the JDK's own test of this
 * ({@code MonitorEnterWaitOOME}: monitorenter, timed wait, untimed wait), with the JDK's flags
 * ({@code -XX:+UseG1GC -Xmx48M}); and the thread that registers the scheduler's MXBean survives
 * the full heap. See {@link MonitorEnterOomeProbe}. Before the preemption poll stopped letting
 * a failed yield's {@code OutOfMemoryError} out, the virtual thread died in its fill loop and
 * every run hung; a pass proves little on its own, hence the repetitions.
 */
class MemoryPressureIT {
    private static final List<String> SMALL_HEAP = List.of("-XX:+UseG1GC", "-Xmx48M");

    @RepeatedTest(3)
    void aVirtualThreadBlockedEnteringAMonitorAfterAnOutOfMemoryErrorRunsAgain() {
        check("monitorenter");
    }

    @RepeatedTest(3)
    void aVirtualThreadInATimedWaitAfterAnOutOfMemoryErrorRunsAgain() {
        check("timedwait");
    }

    @RepeatedTest(3)
    void aVirtualThreadInAnUntimedWaitAfterAnOutOfMemoryErrorRunsAgain() {
        check("untimedwait");
    }

    private static void check(String variant) {
        Forked jvm = ForkedJvm.withAgent(null, SMALL_HEAP, MonitorEnterOomeProbe.class, variant);
        assertEquals("ok", jvm.value("outcome"), jvm.toString());
        assertEquals("registered", jvm.value("mxbean"), jvm.toString());
        assertEquals(0, jvm.exitCode(), jvm.toString());
    }
}
