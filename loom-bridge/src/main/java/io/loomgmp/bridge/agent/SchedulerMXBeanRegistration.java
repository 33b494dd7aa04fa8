package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.GmpSchedulerMXBeans;

import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;

/**
 * Registers the JVM-wide scheduler's MXBean ({@code io.loomgmp:type=Scheduler,name=gmp}) with
 * the platform MBean server, once something else has created that server: the application, a
 * library (a metrics or monitoring framework), {@code -Dcom.sun.management.jmxremote}, or
 * JConsole or JMC attaching, which starts the JDK's management agent. A daemon platform thread
 * looks once every {@link #POLL_MILLIS} and ends after registering.
 *
 * <p>Why not create the server at start-up: creating the platform MBean server loads about a
 * thousand classes and takes about 0.3 s on a 2-core machine, which every application would pay
 * at start-up for a view that few open; and it initialises {@code java.util.logging.LogManager},
 * which breaks application servers that install their own LogManager later (WildFly). Looking
 * for the server costs about a millisecond once and microseconds afterwards. It is a platform
 * thread so that the polls neither run on nor show up in the scheduler's own counters.
 *
 * <p>A failure to register prints one line on standard error and the application goes on. An
 * {@code OutOfMemoryError} (or another {@code VirtualMachineError}) is not a failure to register:
 * the thread looks again at its next poll.
 */
final class SchedulerMXBeanRegistration implements Runnable {
    /**
     * A console that has just attached (creating the server) sees the MXBean appear within this
     * time, mostly before it lists the MBeans (JConsole's MBeans tab also follows later
     * registrations). A poll costs microseconds; the JVM's own periodic task thread wakes more often.
     */
    static final long POLL_MILLIS = 100;
    static final String THREAD_NAME = "gmp-mxbean";

    private final GmpScheduler scheduler;
    private final PrintStream err;

    private SchedulerMXBeanRegistration(GmpScheduler scheduler, PrintStream err) {
        this.scheduler = scheduler;
        this.err = err;
    }

    /**
     * Starts the thread that waits for the platform MBean server: {@code Starter.start}. Call it
     * only when the module {@code java.management} is present: this class does not link without
     * it. Starting goes through a class of its own so that this class, and the JMX classes its
     * verification loads, are loaded on that thread rather than in the agent's start-up.
     */
    static final class Starter implements Runnable {
        private final GmpScheduler scheduler;
        private final PrintStream err;

        private Starter(GmpScheduler scheduler, PrintStream err) {
            this.scheduler = scheduler;
            this.err = err;
        }

        static void start(GmpScheduler scheduler, PrintStream err) {
            Thread thread = new Thread(new Starter(scheduler, err), THREAD_NAME);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        public void run() {
            new SchedulerMXBeanRegistration(scheduler, err).run();
        }
    }

    @Override
    public void run() {
        boolean attempted = false;
        while (true) {
            try {
                // The first look is made at once, at start-up, rather than after a poll: it
                // initialises the JMX classes every look needs (ObjectName, MBeanServerFactory).
                // A class whose initialiser fails, as it does when the application has filled the
                // heap at that moment, stays unusable for the rest of the JVM's life, and these
                // classes are the application's too.
                if (platformServerExists()) {
                    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                    if (attempted && server.isRegistered(GmpSchedulerMXBeans.objectName(scheduler.name()))) {
                        return; // the earlier attempt registered it, then failed (below)
                    }
                    attempted = true;
                    register(scheduler, server, err);
                    return;
                }
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                return;
            } catch (VirtualMachineError e) {
                // An OutOfMemoryError while the heap is full for a moment: the thread must not die
                // of it, or the MXBean would never appear. Look again after a poll; a registration
                // that went through before the error is found registered then.
                try {
                    Thread.sleep(POLL_MILLIS);
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    /**
     * Whether the platform MBean server has been created, without creating it: it is one of the
     * servers that MBeanServerFactory keeps, the one with the platform MXBeans in it.
     */
    static boolean platformServerExists() {
        ObjectName platformRuntime = objectName(ManagementFactory.RUNTIME_MXBEAN_NAME);
        for (MBeanServer server : MBeanServerFactory.findMBeanServer(null)) {
            if (server.isRegistered(platformRuntime)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Registers {@code scheduler}'s MXBean with {@code server}, or prints one line saying why it
     * could not. Returns whether it is registered.
     */
    static boolean register(GmpScheduler scheduler, MBeanServer server, PrintStream err) {
        ObjectName name = GmpSchedulerMXBeans.objectName(scheduler.name());
        try {
            if (server.isRegistered(name)) {
                // The application took the name; GmpSchedulerMXBeans' message would tell it to
                // rename a scheduler it did not build.
                err.println("loom-gmp: the scheduler's MXBean is not registered, so JConsole and JMC will not show it:"
                        + " an MBean named " + name + " is already registered (-Dgmp.mxbean=false turns this off)");
                return false;
            }
            GmpSchedulerMXBeans.register(scheduler, server);
            return true;
        } catch (RuntimeException e) {
            err.println("loom-gmp: the scheduler's MXBean is not registered, so JConsole and JMC will not show it: "
                    + (e.getMessage() != null ? e.getMessage() : e.toString()) + " (-Dgmp.mxbean=false turns this off)");
            return false;
        }
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(name, e);
        }
    }
}
