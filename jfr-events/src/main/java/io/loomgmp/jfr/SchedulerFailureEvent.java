package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * Something failed inside the scheduler itself, not in a task: a carrier that could not be
 * started, a carrier or sysmon that caught an error outside any task, an event that could not be
 * recorded. The scheduler recovered from it (the failing carrier handed its P and its work back
 * and ended; sysmon went on); this event, a counter and the uncaught-exception handler report it.
 * On in both settings files and by default.
 */
@Name("loomgmp.SchedulerFailure")
@Label("Scheduler Failure")
@Description("A failure inside the scheduler (not in a task), and what the scheduler did about it")
@Category({"loom-gmp", "Failures"})
@StackTrace(true)
public final class SchedulerFailureEvent extends jdk.jfr.Event {
    @Label("Scheduler")
    @Description("Name of the scheduler")
    public String scheduler;

    @Label("Site")
    @Description("Where it failed: carrier-start, carrier, sysmon or event")
    public String site;

    @Label("Failure")
    @Description("The exception's class and message")
    public String failure;

    @Label("Recovery")
    @Description("What the scheduler did about it")
    public String recovery;
}
