package io.loomgmp.bridge.probe;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run under the agent: runs virtual threads, creates the platform MBean server, waits up to
 * {@code args[0]} ms for the scheduler's MXBean and prints what JMX shows of it. What a console
 * attached to the JVM would read.
 */
public final class MXBeanProbe {
    public static final int THREADS = 100;

    public static void main(String[] args) throws Exception {
        long waitMillis = Long.parseLong(args[0]);
        // Before anything touches JMX: the agent must not have created the platform MBean server.
        System.out.println("serversAtStart=" + MBeanServerFactory.findMBeanServer(null).size());
        System.out.println("registrationThreadAtStart=" + registrationThreadAlive());

        AtomicLong sum = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            int n = i;
            threads.add(Thread.ofVirtual().start(() -> sum.addAndGet(n)));
        }
        for (Thread t : threads) {
            t.join();
        }

        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("io.loomgmp:type=Scheduler,name=gmp");
        long start = System.nanoTime();
        while (!server.isRegistered(name) && (System.nanoTime() - start) / 1_000_000 < waitMillis) {
            Thread.sleep(10);
        }
        boolean registered = server.isRegistered(name);
        System.out.println("registered=" + registered);
        if (registered) {
            System.out.println("waitedMillis=" + (System.nanoTime() - start) / 1_000_000);
            for (String attribute : List.of("Name", "Procs", "TasksRun", "Carriers", "GlobalQueueLength",
                    "SchedtraceLine")) {
                System.out.println(attribute + "=" + server.getAttribute(name, attribute));
            }
            System.out.println("LocalQueueLengths=" + Arrays.toString((int[]) server.getAttribute(name, "LocalQueueLengths")));
        }
        System.out.println("registrationThreadAtEnd=" + registrationThreadAlive());
    }

    private static boolean registrationThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("gmp-mxbean"));
    }
}
