package io.loomgmp.bridge.agent;

import javax.management.MBeanServerFactory;
import java.lang.management.ManagementFactory;

/**
 * A JVM without the agent, in which nothing has made the platform MBean server yet: prints what
 * {@link SchedulerMXBeanRegistration#platformServerExists()} says before it is made, beside another
 * server that {@code MBeanServerFactory} keeps (the application's own), and after it is made.
 */
public final class PlatformServerProbe {
    private PlatformServerProbe() {
    }

    public static void main(String[] args) {
        System.out.println("beforeCreation=" + SchedulerMXBeanRegistration.platformServerExists());
        MBeanServerFactory.createMBeanServer("app");
        System.out.println("besideAnotherKeptServer=" + SchedulerMXBeanRegistration.platformServerExists());
        ManagementFactory.getPlatformMBeanServer();
        System.out.println("afterCreation=" + SchedulerMXBeanRegistration.platformServerExists());
    }
}
