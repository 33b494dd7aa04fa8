package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.probe.CarrierProbe;
import io.loomgmp.bridge.probe.HandOffProbe;
import io.loomgmp.bridge.probe.QueuedWorkProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The agent in a forked JVM: every virtual thread on GMP, settings honoured, bad values refused. */
class AgentIT {
    private static final Pattern GMP_CARRIER = Pattern.compile("gmp-M\\d+");

    @Test
    void everyCreationApiAndAChildOfAVirtualThreadRunOnGmpCarriers() {
        Forked jvm = ForkedJvm.withAgent(null, List.of(), CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        for (String api : List.of("ofVirtual", "startVirtualThread", "newVirtualThreadPerTaskExecutor",
                "childOfVirtual", "factory")) {
            String carrier = jvm.value(api);
            assertTrue(GMP_CARRIER.matcher(carrier).matches(), api + " ran on " + carrier + "\n" + jvm);
        }
        assertEquals(Runtime.getRuntime().availableProcessors(), jvm.longValue("procs"));
        assertEquals(Math.max(256, Runtime.getRuntime().availableProcessors()), jvm.longValue("maxCarriers"));
        assertEquals(10_000_000, jvm.longValue("timeSliceNanos"));
        assertEquals(30_000_000_000L, jvm.longValue("keepAliveNanos"));
        assertTrue(jvm.longValue("tasksRun") >= 5, jvm.toString());
        assertEquals("", jvm.stderr(), "the agent prints nothing when all is well");
    }

    @Test
    void theJdksSpinHeuristicSeesWorkQueuedOnAGmpCarrier() {
        Forked jvm = ForkedJvm.withAgent(null, List.of("-Djdk.virtualThreadScheduler.parallelism=1",
                "--add-opens", "java.base/java.util.concurrent=ALL-UNNAMED"), QueuedWorkProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("false", jvm.value("withoutQueuedWork"), jvm.toString());
        assertEquals("true", jvm.value("withQueuedWork"),
                "ForkJoinWorkerThread.hasKnownQueuedWork() answers for GMP carriers\n" + jvm);
        assertEquals("", jvm.stderr());
    }

    @Test
    void jdkPropertiesSetTheProcsAndTheCarrierBound() {
        Forked jvm = ForkedJvm.withAgent(null,
                List.of("-Djdk.virtualThreadScheduler.parallelism=3", "-Djdk.virtualThreadScheduler.maxPoolSize=7"),
                CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(3, jvm.longValue("snapshotProcs"));
        assertEquals(7, jvm.longValue("maxCarriers"));
    }

    @Test
    void aMaxPoolSizeBelowTheParallelismLowersItAsInTheJdk() {
        Forked jvm = ForkedJvm.withAgent(null,
                List.of("-Djdk.virtualThreadScheduler.parallelism=6", "-Djdk.virtualThreadScheduler.maxPoolSize=4"),
                CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(4, jvm.longValue("snapshotProcs"));
        assertEquals(4, jvm.longValue("maxCarriers"));
    }

    @Test
    void agentArgumentsWinOverProperties() {
        Forked jvm = ForkedJvm.withAgent("parallelism=4,timeslice=5ms,maxPoolSize=300,keepalive=5s",
                List.of("-Djdk.virtualThreadScheduler.parallelism=3", "-Dgmp.timeslice=20ms", "-Dgmp.keepalive=20s"),
                CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(4, jvm.longValue("snapshotProcs"));
        assertEquals(300, jvm.longValue("maxCarriers"));
        assertEquals(5_000_000, jvm.longValue("timeSliceNanos"));
        assertEquals(5_000_000_000L, jvm.longValue("keepAliveNanos"));
        assertTrue(GMP_CARRIER.matcher(jvm.value("ofVirtual")).matches(), jvm.toString());
    }

    @Test
    void gmpTimesliceKeepaliveAndLatencySampleProperties() {
        Forked jvm = ForkedJvm.withAgent(null, List.of("-Dgmp.timeslice=250us", "-Dgmp.keepalive=1500ms",
                "-Dgmp.latency.sample=1"), CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals(250_000, jvm.longValue("timeSliceNanos"));
        assertEquals(1_500_000_000L, jvm.longValue("keepAliveNanos"));
        assertEquals(1, jvm.longValue("latencySample"));
        assertEquals(8, ForkedJvm.withAgent(null, List.of(), CarrierProbe.class).longValue("latencySample"), "the default");
    }

    @Test
    void aBadValueStopsStartUpWithOneLineNamingTheSetting() {
        assertRefused(null, List.of("-Djdk.virtualThreadScheduler.parallelism=abc"),
                "loom-gmp: bad value \"abc\" for system property jdk.virtualThreadScheduler.parallelism:"
                        + " expected a whole number from 1 to 32767");
        assertRefused(null, List.of("-Djdk.virtualThreadScheduler.maxPoolSize=0"),
                "loom-gmp: bad value \"0\" for system property jdk.virtualThreadScheduler.maxPoolSize:"
                        + " expected a whole number from 1 to 32767");
        assertRefused("timeslice=5parsecs", List.of(),
                "loom-gmp: bad value \"5parsecs\" for agent argument timeslice:"
                        + " expected a positive duration with a unit: ns, us, ms or s (e.g. 10ms)");
        assertRefused(null, List.of("-Dgmp.schedtrace=-1"),
                "loom-gmp: bad value \"-1\" for system property gmp.schedtrace:"
                        + " expected milliseconds between lines, a whole number (0 turns it off)");
        assertRefused(null, List.of("-Dgmp.preempt=no"),
                "loom-gmp: bad value \"no\" for system property gmp.preempt: expected true or false");
        assertRefused("preempt.include=com.acme.;org..example", List.of(),
                "loom-gmp: bad value \"com.acme.;org..example\" for agent argument preempt.include:"
                        + " expected package prefixes separated by ';' such as com.acme.;org.example."
                        + " (\"org..example\" is not a dotted Java name)");
        assertRefused(null, List.of("-Dgmp.keepalive=-1s"),
                "loom-gmp: bad value \"-1s\" for system property gmp.keepalive:"
                        + " expected a positive duration with a unit: ns, us, ms or s (e.g. 30s)");
        assertRefused("procs=2", List.of(),
                "loom-gmp: unknown agent argument \"procs=2\"; accepted: parallelism=N, maxPoolSize=N,"
                        + " timeslice=DURATION, keepalive=DURATION, schedtrace=MS, latency.sample=N, preempt=true|false,"
                        + " preempt.include=PREFIXES, preempt.exclude=PREFIXES, mxbean=true|false, timers=true|false,"
                        + " verbose=true|false, strict=true|false");
        assertRefused("strict=yes", List.of(), "loom-gmp: bad value \"yes\" for agent argument strict: expected true or false");
        assertRefused(null, List.of("-Dgmp.latency.sample=-8"),
                "loom-gmp: bad value \"-8\" for system property gmp.latency.sample: expected a whole number from 0 to"
                        + " 1000000: about one task in N is timed (1 times every task, 0 turns sampling off)");
    }

    private static void assertRefused(String agentArguments, List<String> jvmArgs, String expectedLine) {
        Forked jvm = ForkedJvm.withAgent(agentArguments, jvmArgs, CarrierProbe.class);
        assertEquals(1, jvm.exitCode(), jvm.toString());
        assertEquals(expectedLine, jvm.stderr().strip(), jvm.toString());
        assertEquals("", jvm.stdout(), "the application never started");
    }

    @Test
    void schedtracePrintsGosLineAtTheGivenPeriod() {
        Forked jvm = ForkedJvm.withAgent(null, List.of("-Dgmp.schedtrace=50",
                "-Djdk.virtualThreadScheduler.parallelism=2"), CarrierProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        Pattern line = Pattern.compile("SCHED \\d+ms: gomaxprocs=2 idleprocs=[0-2] threads=\\d+ spinningthreads=\\d+"
                + " idlethreads=\\d+ runqueue=\\d+ \\[\\d+ \\d+] latp50=(-|\\d+(\\.\\d)?(us|ms|s)) latp99=(-|\\d+(\\.\\d)?(us|ms|s))");
        List<String> lines = jvm.stderr().lines().toList();
        assertTrue(lines.size() >= 2, "the probe runs > 100 ms, so at least two lines\n" + jvm);
        for (String l : lines) {
            assertTrue(line.matcher(l).matches(), "not a schedtrace line: " + l);
        }
    }

    @Test
    void unparkByAVirtualThreadIsAHandOffAndYieldGoesToTheBackOfAQueue() {
        Forked jvm = ForkedJvm.withAgent(null, List.of(), HandOffProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertTrue(jvm.longValue("pingpongRunnextHits") >= HandOffProbe.ROUND_TRIPS,
                "each unpark of a parked partner goes to runnext\n" + jvm);
        assertTrue(jvm.longValue("yieldQueuePops") >= HandOffProbe.YIELDS,
                "each yield goes to the back of a queue (alone on its P: the local ring, from which the other P may steal it)\n" + jvm);
        assertTrue(jvm.longValue("yieldRunnextHits") < HandOffProbe.YIELDS / 10,
                "a yield is not a hand-off\n" + jvm);
    }
}
