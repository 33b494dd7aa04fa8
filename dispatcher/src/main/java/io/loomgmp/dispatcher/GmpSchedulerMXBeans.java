package io.loomgmp.dispatcher;

import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Registers a scheduler's {@link GmpSchedulerMXBean} under
 * {@code io.loomgmp:type=Scheduler,name=<scheduler name>}, so that JConsole and JMC's MBean
 * browser show its figures:
 * <pre>{@code
 * GmpScheduler gmp = GmpScheduler.builder().name("orders").build();
 * GmpSchedulerMXBeans.register(gmp);   // io.loomgmp:type=Scheduler,name=orders
 * }</pre>
 * The MXBean is unregistered when the scheduler closes. The agent registers the JVM-wide
 * scheduler (named {@code gmp}) by itself. Only this class and its view touch
 * {@code java.management}, so a scheduler that is never registered does not load it. On the
 * module path, code that calls this class reads {@code java.management} itself ({@code requires
 * java.management}): the dispatcher does not pass it on to every user.
 */
@SuppressWarnings("exports") // ObjectName and MBeanServer: see above
public final class GmpSchedulerMXBeans {
    public static final String DOMAIN = "io.loomgmp";
    /** Characters an unquoted ObjectName value cannot hold ({@code * ?} would make it a pattern). */
    private static final Pattern NEEDS_QUOTES = Pattern.compile("[,=:\"*?\\n]");

    private GmpSchedulerMXBeans() {
    }

    /**
     * {@code io.loomgmp:type=Scheduler,name=<schedulerName>}, with the name quoted
     * ({@link ObjectName#quote}) when it holds a character an ObjectName value cannot hold as is.
     */
    public static ObjectName objectName(String schedulerName) {
        Objects.requireNonNull(schedulerName, "schedulerName");
        String value = NEEDS_QUOTES.matcher(schedulerName).find() ? ObjectName.quote(schedulerName) : schedulerName;
        try {
            return new ObjectName(DOMAIN + ":type=Scheduler,name=" + value);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("scheduler name \"" + schedulerName + "\" makes no ObjectName", e);
        }
    }

    /** Registers {@code scheduler}'s MXBean with the platform MBean server; see {@link #register(GmpScheduler, MBeanServer)}. */
    public static ObjectName register(GmpScheduler scheduler) {
        return register(scheduler, ManagementFactory.getPlatformMBeanServer());
    }

    /**
     * Registers {@code scheduler}'s MXBean with {@code server} under {@link #objectName}, and
     * arranges for {@link GmpScheduler#close()} to unregister it.
     *
     * @return the name it was registered under
     * @throws IllegalStateException if that name is taken (each scheduler needs its own name),
     *         or the scheduler is closed
     */
    public static ObjectName register(GmpScheduler scheduler, MBeanServer server) {
        Objects.requireNonNull(scheduler, "scheduler");
        Objects.requireNonNull(server, "server");
        if (scheduler.isClosed()) {
            throw new IllegalStateException("scheduler \"" + scheduler.name() + "\" is closed: no MXBean for it");
        }
        ObjectName name = objectName(scheduler.name());
        try {
            server.registerMBean(new SchedulerMXBeanView(scheduler), name);
        } catch (InstanceAlreadyExistsException e) {
            throw new IllegalStateException("an MBean named " + name + " is already registered;"
                    + " give each scheduler its own name (GmpScheduler.builder().name(...))", e);
        } catch (JMException e) {
            // NotCompliantMBeanException, MBeanRegistrationException: not expected of this MXBean.
            throw new IllegalStateException("cannot register " + name + ": " + e, e);
        }
        scheduler.onClose(() -> unregisterQuietly(server, name));
        return name;
    }

    /** A close action must not throw; an MBean already gone (unregistered by hand) is fine. */
    private static void unregisterQuietly(MBeanServer server, ObjectName name) {
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException | MBeanRegistrationException gone) {
            // Nothing left to undo.
        }
    }
}
