package io.loomgmp.dispatcher;

import io.loomgmp.jfr.RunEvent;
import io.loomgmp.jfr.SchedLatencyEvent;

/**
 * Where a task waited before a carrier ran it: the queue {@link RunLoop} took it from (the
 * {@code loomgmp.Run} event's source), or {@link #TIMER} for a task a timer made runnable, which
 * the latency figures keep apart wherever the task then waited. {@link #label} is the name every
 * view uses: JFR events, the snapshot's map, Micrometer's {@code source} tag.
 */
enum RunSource {
    RUNNEXT(RunEvent.SOURCE_RUNNEXT),
    LOCAL(RunEvent.SOURCE_LOCAL),
    GLOBAL(RunEvent.SOURCE_GLOBAL),
    FAIRNESS(RunEvent.SOURCE_FAIRNESS),
    STOLEN(RunEvent.SOURCE_STOLEN),
    /** Latency only: never the source of a run event (the task is in runnext, or wherever it went next). */
    TIMER(SchedLatencyEvent.SOURCE_TIMER);

    static final RunSource[] ALL = values();

    final String label;

    RunSource(String label) {
        this.label = label;
    }
}
