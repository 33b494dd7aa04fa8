package io.loomgmp.bridge.agent;

import example.app.SpinProbe;
import io.loomgmp.bridge.probe.CheckpointWithoutAccessProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The polls in a forked JVM: a CPU-bound virtual thread of an application class gives up the only
 * carrier when sysmon asks, exactly when the agent instrumented that class (see {@link SpinProbe}).
 */
class PreemptionPollsIT {
    /** One P and one carrier: sysmon cannot hand the P to another carrier, only a yield frees it. */
    private static final List<String> ONE_CARRIER = List.of(
            "-Djdk.virtualThreadScheduler.parallelism=1", "-Djdk.virtualThreadScheduler.maxPoolSize=1");

    @Test
    void aSpinningVirtualThreadYieldsAtTheInsertedPoll() {
        assertYields(true, null, List.of());
    }

    @Test
    void withPreemptFalseTheLoopHasNoPoll() {
        assertYields(false, null, List.of("-Dgmp.preempt=false"));
    }

    @Test
    void includeAndExcludeDecideWhichClassesGetPolls() {
        assertYields(true, "preempt.include=example.app.", List.of());
        assertYields(false, null, List.of("-Dgmp.preempt.include=com.acme.;org.example."));
        assertYields(false, "preempt.exclude=example.", List.of());
        assertYields(false, "preempt.include=example.", List.of("-Dgmp.preempt.exclude=example.app.SpinProbe"));
    }

    @Test
    void withoutAccessToCarriersAPollDoesNothingAndThrowsNothing() {
        Forked jvm = ForkedJvm.withoutAgent(List.of(), CheckpointWithoutAccessProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("true", jvm.value("pending"), "a request was open, so the polls took the slow path\n" + jvm);
        assertEquals("nothing", jvm.value("thrown"), jvm.toString());
        assertEquals("true", jvm.value("pendingAfter"), "polls off the scheduler's carriers take no request\n" + jvm);
    }

    private static void assertYields(boolean expected, String agentArguments, List<String> properties) {
        List<String> jvmArgs = new ArrayList<>(ONE_CARRIER);
        jvmArgs.addAll(properties);
        Forked jvm = ForkedJvm.withAgent(agentArguments, jvmArgs, SpinProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        String settings = "agent arguments " + agentArguments + ", properties " + properties + "\n" + jvm;
        assertEquals(String.valueOf(expected), jvm.value("passedWhileSpinning"), settings);
        if (expected) {
            assertTrue(jvm.longValue("spinMillis") < SpinProbe.SPIN_BOUND_MILLIS / 2,
                    "sysmon asks after a 10 ms time slice\n" + settings);
        }
        assertEquals("", jvm.stderr(), settings);
    }
}
