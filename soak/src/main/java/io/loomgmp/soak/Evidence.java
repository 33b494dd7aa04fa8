package io.loomgmp.soak;

import com.sun.management.HotSpotDiagnosticMXBean;
import io.loomgmp.dispatcher.GmpScheduler;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What a failed or stuck soak prints, for whoever has to find out why: the scheduler's snapshot
 * (each P, what it runs and for how long, queues, counters), every platform thread's whole stack
 * with the locks it holds and waits for (carriers, sysmon, the soak's drivers), and a dump of
 * every thread, virtual ones included, written to a file (the JDK's
 * {@code HotSpotDiagnosticMXBean.dumpThreads}: the form {@code jcmd Thread.dump_to_file} writes).
 * Any thread; never throws: a part that fails says so in its place.
 */
final class Evidence {
    private Evidence() {
    }

    static String of(GmpScheduler scheduler) {
        StringBuilder out = new StringBuilder();
        try {
            out.append("--- scheduler\n").append(scheduler).append('\n').append(scheduler.snapshot()).append('\n');
        } catch (Throwable e) {
            out.append("(no snapshot: ").append(e).append(")\n");
        }
        out.append("--- platform threads\n");
        try {
            for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
                appendThread(out, info);
            }
        } catch (Throwable e) {
            out.append("(no thread dump: ").append(e).append(")\n");
        }
        out.append("--- all threads, virtual ones too: ");
        try {
            Path file = Files.createTempDirectory("loomgmp-soak-").resolve("threads.txt");
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            out.append(file).append('\n');
        } catch (Throwable e) {
            out.append("(not written: ").append(e).append(")\n");
        }
        return out.toString();
    }

    /** {@code ThreadInfo.toString} stops at 8 frames; this prints them all. */
    private static void appendThread(StringBuilder out, ThreadInfo info) {
        out.append('"').append(info.getThreadName()).append("\" #").append(info.getThreadId())
                .append(info.isDaemon() ? " daemon" : "").append(' ').append(info.getThreadState());
        if (info.getLockName() != null) {
            out.append(" on ").append(info.getLockName());
        }
        if (info.getLockOwnerName() != null) {
            out.append(" owned by \"").append(info.getLockOwnerName()).append("\" #").append(info.getLockOwnerId());
        }
        out.append('\n');
        StackTraceElement[] frames = info.getStackTrace();
        for (int i = 0; i < frames.length; i++) {
            out.append("    at ").append(frames[i]).append('\n');
            for (MonitorInfo monitor : info.getLockedMonitors()) {
                if (monitor.getLockedStackDepth() == i) {
                    out.append("    - locked ").append(monitor).append('\n');
                }
            }
        }
        for (LockInfo lock : info.getLockedSynchronizers()) {
            out.append("    - holds ").append(lock).append('\n');
        }
        out.append('\n');
    }
}
