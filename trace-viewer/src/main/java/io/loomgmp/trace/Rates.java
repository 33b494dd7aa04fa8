package io.loomgmp.trace;

/**
 * Per-second rates between two readings of the same scheduler: the differences of its cumulative
 * counters divided by the time between the reads, as the console measured it (not the target's
 * clock: a read that waited on the network counts in the interval it ended).
 *
 * @param seconds  the time between the two reads
 * @param tasks    tasks run
 * @param steals   successful steals
 * @param global   tasks taken from the global queue, in batches or on the fairness tick
 * @param preempts preemption requests by sysmon
 * @param handoffs Ps that sysmon handed from a blocked carrier to another
 * @param parks    carriers parking on the idle list
 * @param tasksByP tasks run on each P, by id
 */
record Rates(double seconds, double tasks, double steals, double global, double preempts, double handoffs,
             double parks, double[] tasksByP) {

    /**
     * The rates from {@code before} to {@code after}; null when there is no earlier reading, no
     * time between them, or they cannot be of the same scheduler (another P count, a counter that
     * went back: the MXBean was registered again for a new scheduler of the same name).
     */
    static Rates between(SchedulerReading before, SchedulerReading after) {
        if (before == null || after.readAtNanos() <= before.readAtNanos()
                || before.processors().size() != after.processors().size()) {
            return null;
        }
        double seconds = (after.readAtNanos() - before.readAtNanos()) / 1e9;
        long[] deltas = {
                after.tasksRun() - before.tasksRun(),
                after.steals() - before.steals(),
                after.globalGrabs() + after.fairnessTickGrabs() - before.globalGrabs() - before.fairnessTickGrabs(),
                after.preemptRequests() - before.preemptRequests(),
                after.handoffs() - before.handoffs(),
                after.parks() - before.parks()};
        double[] byP = new double[after.processors().size()];
        for (int i = 0; i < byP.length; i++) {
            long delta = after.processors().get(i).tasksRun() - before.processors().get(i).tasksRun();
            if (delta < 0) {
                return null;
            }
            byP[i] = delta / seconds;
        }
        for (long delta : deltas) {
            if (delta < 0) {
                return null;
            }
        }
        return new Rates(seconds, deltas[0] / seconds, deltas[1] / seconds, deltas[2] / seconds, deltas[3] / seconds,
                deltas[4] / seconds, deltas[5] / seconds, byP);
    }
}
