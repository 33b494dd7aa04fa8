package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link Scheduling#start}: nothing runs or registers before it, and a failed start leaves nothing behind. */
class SchedulingStartTest {

    private static SchedulerConfig withSysmon(String name) {
        SchedulerConfig inert = SchedulerConfig.inert(name, 1, 2);
        return new SchedulerConfig(inert.name(), inert.procs(), inert.maxCarriers(), inert.timeSlice(),
                inert.keepAlive(), inert.exceptionHandler(), inert.carrierLocator(), inert.threadFactory(), true,
                inert.latencySampleEvery(), inert.seams());
    }

    @Test
    void aBuiltSchedulerRunsNothingUntilStarted() throws Exception {
        Scheduling s = new Scheduling(withSysmon("start-test"));
        assertFalse(FlightRecording.isRegistered(s));
        assertFalse(s.sysmon.thread().isAlive(), "no sysmon before start()");
        s.start();
        try {
            assertTrue(FlightRecording.isRegistered(s));
            assertTrue(s.sysmon.thread().isAlive());
            assertThrows(IllegalStateException.class, s::start, "started twice");
        } finally {
            s.close();
        }
        assertFalse(FlightRecording.isRegistered(s), "close unregisters it");
    }

    @Test
    void aStartThatCannotStartSysmonLeavesNothingRegistered() {
        Scheduling s = new Scheduling(withSysmon("start-fails"));
        s.sysmon.start(); // its thread is taken: start() cannot start it (as with no thread to be had)
        try {
            assertThrows(IllegalThreadStateException.class, s::start);
            assertFalse(FlightRecording.isRegistered(s), "a scheduler the builder never returned stays unregistered");
        } finally {
            s.close();
        }
    }
}
