package io.loomgmp.dispatcher;

import java.util.concurrent.atomic.LongAdder;

/** TEMPORARY instrumentation (wip-procs): operation counts that may grow with P; -Dloomgmp.scaleProbe=true. */
final class ScaleProbe {
    static final boolean ON = Boolean.getBoolean("loomgmp.scaleProbe");

    enum C {
        STEAL_CALLS, STEAL_PASSES, STEAL_VICTIMS, STEAL_TRIES, STEAL_GRACE, STEAL_HITS,
        SPINWAIT_CALLS, SPINWAIT_LOOKS, SPINWAIT_SCANS, SPINWAIT_HITS,
        OTHERSDUE_CALLS, OTHERSDUE_SCANS,
        RECHECK_CALLS, RECHECK_SCANS, RECHECK_HITS,
        TIMER_SCANS,
        WAKEP_CALLS, WAKEP_SLOW, WAKEP_WOKE, FOUNDWORK_WAKEP,
        START_SPINNING, MAYSPIN_DENIED, SPIN_OVER_HALF,
        LOCKS, UNPARKS, STOPS,
        SYSMON_ROUNDS, SYSMON_PVISITS, SYSMON_SCANS,
        READY_BATCHES, READY_BATCH_TASKS, TASKS
    }

    private static final LongAdder[] COUNTS = new LongAdder[C.values().length];

    static {
        for (int i = 0; i < COUNTS.length; i++) {
            COUNTS[i] = new LongAdder();
        }
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(ScaleProbe::print));
        }
    }

    static void count(C c) {
        COUNTS[c.ordinal()].increment();
    }

    static void count(C c, long n) {
        COUNTS[c.ordinal()].add(n);
    }

    static void print() {
        long tasks = Math.max(1, COUNTS[C.TASKS.ordinal()].sum());
        StringBuilder sb = new StringBuilder("PROBE");
        for (C c : C.values()) {
            long v = COUNTS[c.ordinal()].sum();
            sb.append(' ').append(c.name()).append('=').append(v);
            if (c != C.TASKS) {
                sb.append(String.format(java.util.Locale.ROOT, "(%.4f)", (double) v / tasks));
            }
        }
        System.err.println(sb);
    }
}
