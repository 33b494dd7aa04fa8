package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.probe.JdkWindowsProbe;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDK's own windows on the virtual-thread scheduler show GMP under the agent: the platform
 * {@code VirtualThreadSchedulerMXBean} (figures, and {@code setParallelism} resizing the Ps with
 * work observed running on the new count) and {@code jcmd Thread.vthread_scheduler}, in a forked
 * JVM with more runnable virtual threads than Ps ({@link JdkWindowsProbe}).
 */
class JdkWindowsIT {
    @Test
    void theJdksMXBeanAndJcmdDescribeAndControlGmp() {
        String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
        Forked jvm = ForkedJvm.withAgent("parallelism=2", List.of(), JdkWindowsProbe.class, jcmd);
        assertEquals(0, jvm.exitCode(), jvm.toString());
        assertEquals("io.loomgmp.bridge.agent.VirtualThreadSchedulerView", jvm.value("class"), jvm.toString());
        assertEquals("jdk.management:type=VirtualThreadScheduler", jvm.value("objectName"));
        assertEquals(2, jvm.longValue("serverParallelism"));
        assertEquals("2 procs=2", jvm.value("parallelism"));
        String[] pool = jvm.value("poolSize").split(" carriers=");
        assertTrue(Math.abs(Integer.parseInt(pool[0]) - Integer.parseInt(pool[1])) <= 2, jvm.toString());
        assertTrue(Integer.parseInt(pool[0]) >= 2, "two carriers at least for two busy Ps\n" + jvm);
        String[] mounted = jvm.value("mounted").split(" snapshotMounted=");
        int m = Integer.parseInt(mounted[0]);
        assertTrue(m >= 0 && m <= 2 + 2 && Math.abs(m - Integer.parseInt(mounted[1])) <= 2, jvm.toString());
        String[] queued = jvm.value("queued").split(" snapshotQueued=");
        long q = Long.parseLong(queued[0]);
        // 8 CPU-bound threads on 2 Ps: about 6 wait at any time (give or take the others).
        assertTrue(q >= 1 && q <= 20 && Math.abs(q - Long.parseLong(queued[1])) <= 10, jvm.toString());
        assertTrue(jvm.value("jdkToString").matches("\\[parallelism=2, size=\\d+, mounted=\\d+, queued=\\d+] GmpScheduler\\[gmp, .*"),
                jvm.toString());

        assertEquals("4 grownParallelism=4", jvm.value("grownProcs"));
        assertEquals(4, jvm.longValue("widestAt4"), "four CPU-bound chunks at once on four Ps\n" + jvm);
        String out = jvm.value("jcmd");
        assertTrue(out.matches(".*GmpScheduler\\[gmp, procs=4, idle Ps=\\d, carriers=\\d+ \\(running \\d+, spinning \\d+, idle \\d+,"
                        + " blocked \\d+\\), max carriers=256, queued=\\d+ \\(global \\d+, local \\[\\d+ \\d+ \\d+ \\d+]\\), timers=\\d+, running].*"),
                "jcmd prints GMP\n" + jvm);
        assertEquals("1 shrunkParallelism=1", jvm.value("shrunkProcs"));
        assertEquals(1, jvm.longValue("widestAt1"), "one CPU-bound chunk at a time on one P\n" + jvm);
        assertEquals("IllegalArgumentException", jvm.value("zero"));
        assertEquals(jvm.longValue("started"), jvm.longValue("ended"), "every virtual thread ended\n" + jvm);
        assertEquals(2, jvm.longValue("finalProcs"));
        assertEquals("", jvm.stderr(), "nothing printed when all is well");
        System.out.println("[jcmd Thread.vthread_scheduler] " + out.replace('|', '\n'));
    }
}
