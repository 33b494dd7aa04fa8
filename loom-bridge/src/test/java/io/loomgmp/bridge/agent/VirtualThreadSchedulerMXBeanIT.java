package io.loomgmp.bridge.agent;

import example.app.SchedulerBeanChecks;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDK's {@code jdk.management.VirtualThreadSchedulerMXBean} behaves the same with the agent
 * (answered by {@link VirtualThreadSchedulerView}) as without it (the JDK's ForkJoinPool, run
 * first as the reference), reached as the platform object, as a proxy through the platform MBean
 * server (the way monitoring agents reach it) and as the same proxy over a JMX connection (RMI, on
 * the loopback address: the way JConsole and JMC reach it): the checks of
 * {@link SchedulerBeanChecks} (default parallelism, raising and lowering it under load, pool size,
 * mounted and queued counts, a rejected value, both ways seeing one scheduler), in JVMs forked
 * with {@code -XX:ActiveProcessorCount=3} and no parallelism setting.
 */
class VirtualThreadSchedulerMXBeanIT {
    private static final List<String> JVM_ARGS = List.of("-XX:ActiveProcessorCount=3");
    private static final List<String> CHECKS = List.of(
            "defaultParallelism", "raise", "lower", "poolSize", "mounted", "queued", "rejects", "sameScheduler");

    @Test
    void everyWayToTheBeanPassesTheSameChecksWithAndWithoutTheAgent() {
        List<String> failures = new ArrayList<>();
        StringBuilder outputs = new StringBuilder();
        check(ForkedJvm.withoutAgent(JVM_ARGS, SchedulerBeanChecks.class), "jdk",
                "com.sun.management.internal.VirtualThreadSchedulerImpls$VirtualThreadSchedulerImpl", failures, outputs);
        check(ForkedJvm.withAgent(null, JVM_ARGS, SchedulerBeanChecks.class), "gmp",
                VirtualThreadSchedulerView.class.getName(), failures, outputs);
        assertTrue(failures.isEmpty(), String.join("\n", failures) + "\n" + outputs);
    }

    private static void check(Forked jvm, String scheduler, String beanClass, List<String> failures, StringBuilder outputs) {
        outputs.append("=== ").append(scheduler).append(": ").append(jvm).append('\n');
        if (jvm.exitCode() != 0) {
            failures.add(scheduler + ": exit code " + jvm.exitCode());
            return;
        }
        expect(jvm, scheduler, "scheduler", scheduler, failures);
        expect(jvm, scheduler, "beanClass", beanClass, failures);
        expect(jvm, scheduler, "instanceOf", "true", failures);
        for (String way : List.of("platform", "proxy", "remote")) {
            for (String check : CHECKS) {
                expect(jvm, scheduler, way + "." + check, "ok", failures);
            }
        }
        if (!jvm.stderr().isEmpty()) {
            failures.add(scheduler + ": printed on stderr");
        }
    }

    private static void expect(Forked jvm, String scheduler, String key, String expected, List<String> failures) {
        String actual = null;
        for (String line : jvm.stdout().split("\n")) {
            if (line.startsWith(key + "=")) {
                actual = line.substring(key.length() + 1).trim();
            }
        }
        if (!expected.equals(actual)) {
            failures.add(scheduler + ": " + key + "=" + actual + ", expected " + expected);
        }
    }
}
