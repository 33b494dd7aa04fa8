package io.loomgmp.dispatcher;

/** The cumulative counters each P keeps; summed over all Ps in {@link SchedulerSnapshot}. */
enum Counter {
    /** Tasks run on the P, whatever queue they came from. */
    TASKS_RUN,
    /** Tasks taken from {@code runnext} (they inherit the time slice). */
    RUNNEXT_HITS,
    /** Tasks taken from the local ring. */
    LOCAL_POPS,
    /** Tasks taken from the global queue because the local queue was empty (ready batches, yielded tasks). */
    GLOBAL_GRABS,
    /**
     * Tasks taken from the global queue before the local ring: on the fairness tick, because ready
     * work had waited {@code RunLoop.GLOBAL_CHECK_NANOS}, or because a task yielded to it.
     */
    FAIRNESS_TICK_GRABS,
    /** Successful steals by this P. */
    STEALS,
    /** Tasks moved into this P by its steals. */
    STOLEN_TASKS,
    /** Times this P's ring was full and half of it moved to the global queue. */
    OVERFLOWS,
    /** Times a carrier holding this P started spinning (searching for work). */
    SPINS
}
