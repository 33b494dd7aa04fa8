package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * Carrier compensation: sysmon took P {@code processor} from carrier {@code fromCarrier}, blocked
 * inside a task (a pinned virtual thread in a class initialiser, native code, file I/O...), and
 * handed it to carrier {@code toCarrier} so that the P's queue keeps running. Committed by sysmon;
 * on in both settings files and by default.
 */
@Name("loomgmp.Handoff")
@Label("Handoff")
@Description("Sysmon handed the P of a carrier blocked in a task to another carrier")
@Category({"loom-gmp", "sysmon"})
@StackTrace(false)
public final class HandoffEvent extends jdk.jfr.Event {
    @Label("P")
    @Description("Id of the P handed over")
    public int processor;

    @Label("From Carrier Thread Id")
    @Description("Thread id of the blocked carrier that lost the P")
    public long fromCarrier;

    @Label("To Carrier Thread Id")
    @Description("Thread id of the carrier that received the P; 0 when a new carrier was started for it")
    public long toCarrier;

    @Label("Blocked For")
    @Description("How long the carrier had been blocked in the task when sysmon took its P")
    @Timespan(Timespan.NANOSECONDS)
    public long blockedNanos;
}
