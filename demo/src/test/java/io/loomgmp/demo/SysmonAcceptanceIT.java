package io.loomgmp.demo;

import example.probes.FairnessProbe;
import example.probes.ManyPinnedProbe;
import example.probes.PinnedProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 4's acceptance tests, with issue 10's oversubscribed fairness: the sysmon probes in JVMs of
 * their own, every virtual thread on GMP through the agent. The bounds are generous (a loaded
 * 2-core CI machine); the measured figures are what {@code ./loomgmp demo} prints.
 */
class SysmonAcceptanceIT {
    @Test
    void aProbeSleeping1msTwentyTimesFinishesBesideCpuHogsWithBoundedLateness() throws Exception {
        Forked run = ProbeJvm.gmp(List.of(), FairnessProbe.class);
        assertEquals("true", run.value("probeFinishedWhileHogsRan"), run.toString());
        assertTrue(run.longValue("worstLatenessMicros") < 100_000, "worst lateness under 100 ms\n" + run);
    }

    @Test
    void twiceAsManyCpuHogsAsProcessorsStarveNeitherASleeperNorAFreshThread() throws Exception {
        assertFairBesideOversubscribedHogs(2);
    }

    @Test
    void fourTimesAsManyCpuHogsAsProcessorsStarveNeitherASleeperNorAFreshThread() throws Exception {
        assertFairBesideOversubscribedHogs(4);
    }

    /**
     * {@code hogsPerProc × procs} hogs: the sleeps (20 × 1 ms) and the fresh virtual threads started
     * from a platform thread all run while the hogs spin, each within 100 ms.
     */
    private static void assertFairBesideOversubscribedHogs(int hogsPerProc) throws Exception {
        Forked run = ProbeJvm.gmp(List.of(), FairnessProbe.class, String.valueOf(hogsPerProc));
        assertEquals("true", run.value("probeFinishedWhileHogsRan"), run.toString());
        assertTrue(run.longValue("worstLatenessMicros") < 100_000, "worst lateness under 100 ms\n" + run);
        assertTrue(run.longValue("freshThreadMicros") < 100_000, "fresh threads ran within 100 ms\n" + run);
    }

    @Test
    void aProbeRunsWhileEveryCarrierIsPinnedInAClassInitialiser() throws Exception {
        assertProbeRunsBesidePinnedCarriers("clinit");
    }

    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "native blocking is detected through Linux's /proc, and the probe needs mkfifo")
    void aProbeRunsWhileEveryCarrierIsBlockedReadingAFifo() throws Exception {
        assertProbeRunsBesidePinnedCarriers("fifo");
    }

    @Test
    void aSleepingThreadsTimerFiresWhileEveryCarrierIsPinnedInAClassInitialiser() throws Exception {
        // Its timer sits in the heap of a P whose carrier is pinned: sysmon hands that P off.
        Forked run = ProbeJvm.gmp(List.of(), PinnedProbe.class, "clinit-sleep");
        assertTrue(run.longValue("blockedMillis") >= 400, "the carriers really were blocked\n" + run);
        assertTrue(run.longValue("sleepLateMicros") >= 0, "not early\n" + run);
        assertTrue(run.longValue("probeMicros") < 100_000,
                "a 20 ms sleep done within 100 ms, beside pinned carriers\n" + run);
    }

    @Test
    void aThousandPinnedThreadsStayWithinMaxPoolSizeAndSpareCarriersRetire() throws Exception {
        Forked run = ProbeJvm.gmp(List.of("-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=32", "-Dgmp.keepalive=500ms"), ManyPinnedProbe.class);
        assertTrue(run.longValue("mostCarriers") <= 32, "carriers within maxPoolSize\n" + run);
        assertTrue(run.longValue("handoffs") > 0, "sysmon handed blocked carriers' Ps off\n" + run);
        assertEquals("1000", run.value("completed"), run.toString());
        assertEquals("2", run.value("carriersAfterKeepAlive"), "spare carriers retired\n" + run);
    }

    private static void assertProbeRunsBesidePinnedCarriers(String mode) throws Exception {
        Forked run = ProbeJvm.gmp(List.of(), PinnedProbe.class, mode);
        assertTrue(run.longValue("blockedMillis") >= 400, "the carriers really were blocked\n" + run);
        assertTrue(run.longValue("probeMicros") < 50_000, "probe within 50 ms\n" + run);
    }
}
