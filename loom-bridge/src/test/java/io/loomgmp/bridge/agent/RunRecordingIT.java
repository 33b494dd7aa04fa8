package io.loomgmp.bridge.agent;

import example.app.HogRecordingProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A trace must show what the scheduler did while CPU-bound virtual threads time-slice: runs that
 * end at a preemption are recorded, and the runs of hogs that saturate the Ps account for nearly
 * all of the Ps' time. (The JDK drops the first event a custom carrier commits after a virtual
 * thread on it committed one, such as {@code loomgmp.Preempt} at a poll; without
 * {@code loomgmp.CarrierResync} this recording holds one run per hog.)
 */
class RunRecordingIT {
    @Test
    void aRecordingOfSaturatingHogsAccountsForTheirBusyTimeAndTheirPreemptions() {
        Forked jvm = ForkedJvm.withAgent("parallelism=2", List.of(), HogRecordingProbe.class);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        double busy = Double.parseDouble(jvm.value("busyFraction"));
        assertTrue(busy >= 0.9, "hog runs cover at least 90 % of both Ps' time, saw " + busy + "\n" + jvm);
        assertTrue(jvm.longValue("preemptedRuns") + jvm.longValue("yieldedRuns") >= 10,
                "runs that ended at a preemption are in the recording\n" + jvm);
    }
}
