package io.loomgmp.trace;

import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;

import javax.management.AttributeList;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The console's link to the JVM it watches: the JDK's Attach API starts that JVM's local
 * management agent ({@link VirtualMachine#startLocalManagementAgent()}: a JMX connector on the
 * loopback interface, started once and kept for the JVM's life; no flag, no restart), the console
 * connects to it, finds the scheduler's MXBean and reads it, one {@code getAttributes} call a
 * frame.
 *
 * <p><b>Finding the MXBean.</b> The agent registers it only once the platform MBean server exists
 * (see the agent's {@code SchedulerMXBeanRegistration}: a thread named {@code gmp-mxbean} looks
 * every 100 ms); starting the management agent creates that server, so the MXBean appears within
 * a poll of the attach. While that thread is alive the console waits for it
 * ({@link #REGISTRATION_BOUND} at most); without the thread and without the MXBean, the JVM does
 * not run loom-gmp (or runs it with {@code mxbean=false}).
 *
 * <p><b>Failure.</b> Each step that fails throws a {@link TraceException} whose message is the one
 * line the console prints: no such process, not attachable, no loom-gmp. Once connected,
 * {@link #read} throws {@link Gone} when the JVM has exited, and a TraceException when the
 * connection fails while it lives. Every JMX call has a time bound ({@link #RESPONSE_TIMEOUT}),
 * so a JVM that stops answering (stopped, swapping) ends the console with a line instead of
 * hanging it.
 */
final class Attachment implements AutoCloseable {
    /** The agent's JVM-wide scheduler, preferred when the JVM has several schedulers registered. */
    static final String AGENT_SCHEDULER = "gmp";
    /** The name of the agent's thread that registers the MXBean. */
    static final String REGISTRATION_THREAD = "gmp-mxbean";
    /** How long to wait for that thread to register the MXBean (it looks every 100 ms). */
    static final Duration REGISTRATION_BOUND = Duration.ofSeconds(10);
    /** Longest a JMX call may wait for its answer (RMI's socket read timeout, for this JVM). */
    static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(30);
    /** How long a JVM whose connection broke may take to be seen gone, before the break counts as a failure. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(3);
    private static final ObjectName SCHEDULERS = objectName("io.loomgmp:type=Scheduler,*");
    private static final ObjectName RUNTIME = objectName(ManagementFactory.RUNTIME_MXBEAN_NAME);

    /** The watched JVM exited: the console ends, with status 0. */
    static final class Gone extends Exception {
        private static final long serialVersionUID = 1L;

        Gone(long pid) {
            super("pid " + pid + " exited");
        }
    }

    final long pid;
    final ObjectName scheduler;
    /** Whether the MXBean has the scheduling-latency attributes. */
    final boolean withLatency;
    private final JMXConnector connector;
    final MBeanServerConnection connection;

    private Attachment(long pid, ObjectName scheduler, boolean withLatency, JMXConnector connector,
                       MBeanServerConnection connection) {
        this.pid = pid;
        this.scheduler = scheduler;
        this.withLatency = withLatency;
        this.connector = connector;
        this.connection = connection;
    }

    /**
     * Attaches to {@code pid}, connects over JMX and finds its scheduler's MXBean.
     *
     * @throws TraceException with the line to print: no such process, cannot attach, no loom-gmp
     */
    static Attachment open(long pid) throws TraceException {
        if (pid == ProcessHandle.current().pid()) {
            throw new TraceException("pid " + pid + " is this console itself");
        }
        if (ProcessHandle.of(pid).isEmpty()) {
            throw new TraceException("no process with pid " + pid);
        }
        // A JMX call that gets no answer: RMI waits forever by default.
        System.setProperty("sun.rmi.transport.tcp.responseTimeout", String.valueOf(RESPONSE_TIMEOUT.toMillis()));
        String address = managementAgent(pid);
        JMXConnector connector;
        try {
            connector = JMXConnectorFactory.connect(new JMXServiceURL(address));
        } catch (IOException | RuntimeException e) {
            throw new TraceException("cannot connect to the management agent of pid " + pid + " (" + address + "): " + e, e);
        }
        try {
            MBeanServerConnection connection = connector.getMBeanServerConnection();
            ObjectName scheduler = findScheduler(pid, connection);
            Set<String> attributes = new HashSet<>();
            for (MBeanAttributeInfo info : connection.getMBeanInfo(scheduler).getAttributes()) {
                attributes.add(info.getName());
            }
            List<String> missing = SchedulerReading.missing(attributes);
            if (!missing.isEmpty()) {
                throw new TraceException(scheduler + " in pid " + pid + " lacks " + String.join(", ", missing)
                        + ": it is from another release of loom-gmp than this console");
            }
            return new Attachment(pid, scheduler, SchedulerReading.hasLatency(attributes), connector, connection);
        } catch (TraceException e) {
            closeQuietly(connector);
            throw e;
        } catch (IOException | JMException | RuntimeException e) {
            closeQuietly(connector);
            throw new TraceException("cannot read the MBeans of pid " + pid + ": " + e, e);
        }
    }

    /** The address of {@code pid}'s local JMX connector, started now if it was not. */
    private static String managementAgent(long pid) throws TraceException {
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(String.valueOf(pid));
        } catch (AttachNotSupportedException | IOException e) {
            throw new TraceException("cannot attach to pid " + pid + " (is it a JVM of this user, started without"
                    + " -XX:+DisableAttachMechanism?): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            throw new TraceException("cannot attach to pid " + pid + ": " + e, e);
        }
        try {
            return vm.startLocalManagementAgent();
        } catch (IOException | RuntimeException e) {
            throw new TraceException("cannot start the management agent of pid " + pid + ": " + e.getMessage(), e);
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // The agent's address is what we came for; a failed detach leaves nothing behind.
            }
        }
    }

    /**
     * The scheduler's MXBean: {@code name=gmp} (the agent's) if there, else the first by name;
     * waits for the agent's registration thread if it is still looking.
     */
    private static ObjectName findScheduler(long pid, MBeanServerConnection connection)
            throws IOException, TraceException {
        long deadline = System.nanoTime() + REGISTRATION_BOUND.toNanos();
        while (true) {
            // The thread first: it ends right after registering, so a look at the MBeans after
            // finding it gone cannot miss a registration.
            boolean registering = threadAlive(connection, REGISTRATION_THREAD);
            TreeSet<ObjectName> found = new TreeSet<>(connection.queryNames(SCHEDULERS, null));
            if (!found.isEmpty()) {
                return found.stream().filter(n -> AGENT_SCHEDULER.equals(n.getKeyProperty("name"))).findFirst()
                        .orElse(found.first());
            }
            if (!registering) {
                throw new TraceException("pid " + pid + " does not run loom-gmp: it has no " + SCHEDULERS
                        + " MBean (start it with -javaagent:loom-gmp-agent.jar; an agent given mxbean=false"
                        + " registers none)");
            }
            if (System.nanoTime() - deadline > 0) {
                throw new TraceException("pid " + pid + " runs loom-gmp, but its MXBean did not appear within "
                        + REGISTRATION_BOUND.toSeconds() + " s of starting its management agent");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new TraceException("interrupted while waiting for the MXBean of pid " + pid, e);
            }
        }
    }

    private static boolean threadAlive(MBeanServerConnection connection, String name) throws IOException {
        ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(connection,
                ManagementFactory.THREAD_MXBEAN_NAME, ThreadMXBean.class);
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && name.equals(info.getThreadName())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads the scheduler's figures now.
     *
     * @throws Gone          the JVM exited
     * @throws TraceException the connection failed while the JVM lives, or the MXBean is gone
     *                        (its scheduler closed) or answers nonsense
     */
    SchedulerReading read() throws Gone, TraceException {
        try {
            AttributeList attributes = connection.getAttributes(scheduler, SchedulerReading.attributeNames(withLatency));
            long uptime = (Long) connection.getAttribute(RUNTIME, "Uptime");
            return SchedulerReading.of(System.nanoTime(), uptime, attributes, withLatency);
        } catch (InstanceNotFoundException e) {
            // A JVM on its way out may close its scheduler first.
            throw goneOr(e, scheduler + " is no longer registered in pid " + pid + ": its scheduler closed");
        } catch (IOException | JMException | RuntimeException e) {
            throw goneOr(e, "lost the connection to pid " + pid + ": " + e);
        }
    }

    /**
     * What a failed call means: {@link Gone} if the JVM has exited (or does within
     * {@link #EXIT_BOUND}: the connection breaks as it exits), else a TraceException that says
     * {@code otherwise}.
     */
    private TraceException goneOr(Exception failure, String otherwise) throws Gone {
        long deadline = System.nanoTime() + EXIT_BOUND.toNanos();
        do {
            if (ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true)) {
                throw new Gone(pid);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        } while (System.nanoTime() - deadline < 0);
        return new TraceException(otherwise, failure);
    }

    /** Closes the JMX connection (the target's management agent stays, as after JConsole). Never throws. */
    @Override
    public void close() {
        closeQuietly(connector);
    }

    private static void closeQuietly(JMXConnector connector) {
        try {
            connector.close();
        } catch (IOException | RuntimeException ignored) {
            // The JVM may be gone: nothing left to close.
        }
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException(name, e);
        }
    }
}
