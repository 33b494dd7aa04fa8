package example.app;

import io.loomgmp.bridge.Gmp;
import jdk.management.VirtualThreadSchedulerMXBean;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

import static example.app.ConformanceSupport.BOUND;
import static example.app.ConformanceSupport.print;

/**
 * The JDK's {@code jdk.management.VirtualThreadSchedulerMXBean}, reached the ways that code
 * reaches it: the platform object ({@code ManagementFactory.getPlatformMXBean}, way
 * {@code platform}), a proxy through the platform MBean server
 * ({@code ManagementFactory.newPlatformMXBeanProxy}, way {@code proxy}: what monitoring agents
 * use), and the same proxy over a JMX connection (RMI on the loopback address, way
 * {@code remote}: what JConsole and JMC use). Run with the loom-gmp agent and without it (the JDK's ForkJoinPool) by
 * {@code VirtualThreadSchedulerMXBeanIT}, with {@code -XX:ActiveProcessorCount=3}, so that the
 * default parallelism is not the machine's by chance; each check must hold for both schedulers.
 *
 * <p>For each way, prints {@code <way>.<check>=ok} or {@code <way>.<check>=FAIL <what was seen>}:
 * <ul>
 *   <li>{@code defaultParallelism}: the parallelism is {@code availableProcessors()};</li>
 *   <li>{@code raise}: with a busy virtual thread per carrier, raising the parallelism one at a
 *       time, with one more busy thread each time, brings the pool size and the mounted count up
 *       to the new parallelism;</li>
 *   <li>{@code lower}: with more busy threads than the parallelism after raising it, all are
 *       mounted; lowered to 1, the mounted count falls to 1 or less while the threads sleep in
 *       turns, and is exactly 1 once they all spin again;</li>
 *   <li>{@code poolSize}, {@code mounted}: not negative from a platform thread, at least 1 from a
 *       virtual thread (which itself runs on a carrier); the mounted count is also at least 1
 *       while a virtual thread spins. Through the remote way, a virtual thread that reads the
 *       mounted count is parked in socket I/O, not mounted, while the MBean server counts: there
 *       only the spinning thread is counted on;</li>
 *   <li>{@code queued}: with every carrier busy, five more busy threads make five wait (busy
 *       ones: under the agent, threads with nothing to do would run, and be gone, as soon as a
 *       time slice ends and a busy thread is preempted);</li>
 *   <li>{@code rejects}: {@code setParallelism(0)} throws {@code IllegalArgumentException} and
 *       changes nothing;</li>
 *   <li>{@code sameScheduler}: a parallelism set through this way is read back through another
 *       way (the platform object's, or for it the local proxy's) and, under the agent, is GMP's
 *       number of Ps.</li>
 * </ul>
 * Also prints {@code scheduler=gmp|jdk}, the platform object's class ({@code beanClass}) and the
 * MBean server's {@code isInstanceOf} answer for the interface ({@code instanceOf}). The busy
 * threads spin in this class's own loops (an application's code: the agent puts its preemption
 * polls in them), so under the agent they are preempted every time slice; every figure is
 * therefore awaited, within {@link ConformanceSupport#BOUND}, rather than read once. Every
 * virtual thread started is ended before the next check, and the parallelism restored.
 */
public final class SchedulerBeanChecks {
    static final String OBJECT_NAME = "jdk.management:type=VirtualThreadScheduler";
    private static final int QUEUED = 5;

    private SchedulerBeanChecks() {
    }

    /** A check that did not hold: its message says what was awaited and what was seen. */
    private static final class CheckFailed extends Exception {
        CheckFailed(String message) {
            super(message);
        }
    }

    private interface Check {
        void run(VirtualThreadSchedulerMXBean bean) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        VirtualThreadSchedulerMXBean platform = ManagementFactory.getPlatformMXBean(VirtualThreadSchedulerMXBean.class);
        print("scheduler", Gmp.scheduler().isPresent() ? "gmp" : "jdk");
        print("beanClass", platform.getClass().getName());
        print("instanceOf", server.isInstanceOf(new ObjectName(OBJECT_NAME), VirtualThreadSchedulerMXBean.class.getName()));

        Map<String, VirtualThreadSchedulerMXBean> ways = new LinkedHashMap<>();
        ways.put("platform", platform);
        try {
            ways.put("proxy", ManagementFactory.newPlatformMXBeanProxy(server, OBJECT_NAME, VirtualThreadSchedulerMXBean.class));
        } catch (RuntimeException e) {
            print("proxy", "FAIL " + e);
        }
        JMXConnectorServer connectorServer = JMXConnectorServerFactory.newJMXConnectorServer(
                new JMXServiceURL("service:jmx:rmi://127.0.0.1"), null, server);
        connectorServer.start();
        try (JMXConnector connector = JMXConnectorFactory.connect(connectorServer.getAddress())) {
            try {
                ways.put("remote", ManagementFactory.newPlatformMXBeanProxy(connector.getMBeanServerConnection(),
                        OBJECT_NAME, VirtualThreadSchedulerMXBean.class));
            } catch (RuntimeException e) {
                print("remote", "FAIL " + e);
            }
            runChecks(ways, platform);
        } finally {
            connectorServer.stop();
        }
    }

    private static void runChecks(Map<String, VirtualThreadSchedulerMXBean> ways, VirtualThreadSchedulerMXBean platform) {
        for (Map.Entry<String, VirtualThreadSchedulerMXBean> way : ways.entrySet()) {
            VirtualThreadSchedulerMXBean other = way.getKey().equals("platform") ? ways.get("proxy") : platform;
            for (Map.Entry<String, Check> check : checks(other, !way.getKey().equals("remote")).entrySet()) {
                String key = way.getKey() + "." + check.getKey();
                try {
                    check.getValue().run(way.getValue());
                    print(key, "ok");
                } catch (CheckFailed e) {
                    print(key, "FAIL " + e.getMessage());
                } catch (Exception e) {
                    print(key, "FAIL " + e);
                }
            }
        }
    }

    /**
     * The checks of one way, in order; {@code other} is another way, if there is one; {@code local}
     * when a call through this way runs in the calling thread.
     */
    private static Map<String, Check> checks(VirtualThreadSchedulerMXBean other, boolean local) {
        Map<String, Check> checks = new LinkedHashMap<>();
        checks.put("defaultParallelism", SchedulerBeanChecks::defaultParallelism);
        checks.put("raise", SchedulerBeanChecks::raise);
        checks.put("lower", SchedulerBeanChecks::lower);
        checks.put("poolSize", bean -> outsideAndInside("poolSize", bean::getPoolSize));
        checks.put("mounted", bean -> mounted(bean, local));
        checks.put("queued", SchedulerBeanChecks::queued);
        checks.put("rejects", SchedulerBeanChecks::rejects);
        if (other != null) {
            checks.put("sameScheduler", bean -> sameScheduler(bean, other));
        }
        return checks;
    }

    private static void defaultParallelism(VirtualThreadSchedulerMXBean bean) throws CheckFailed {
        int processors = Runtime.getRuntime().availableProcessors();
        expect(bean.getParallelism() == processors, "parallelism " + bean.getParallelism() + ", processors " + processors);
    }

    private static void raise(VirtualThreadSchedulerMXBean bean) throws Exception {
        int parallelism = bean.getParallelism();
        try (BusyThreads busy = new BusyThreads(parallelism)) {
            await("pool size", bean::getPoolSize, n -> n >= parallelism, ">= " + parallelism);
            await("mounted", bean::getMountedVirtualThreadCount, n -> n >= parallelism, ">= " + parallelism);
            for (int more = 1; more <= 2; more++) {
                int raised = parallelism + more;
                bean.setParallelism(raised);
                expect(bean.getParallelism() == raised, "set " + raised + ", read " + bean.getParallelism());
                busy.start(1);
                await("pool size", bean::getPoolSize, n -> n >= raised, ">= " + raised);
                await("mounted", bean::getMountedVirtualThreadCount, n -> n >= raised, ">= " + raised);
            }
        } finally {
            bean.setParallelism(parallelism);
        }
    }

    private static void lower(VirtualThreadSchedulerMXBean bean) throws Exception {
        int parallelism = bean.getParallelism();
        int high = parallelism + 2;
        int low = 1;
        try {
            bean.setParallelism(high);
            try (BusyThreads busy = new BusyThreads(high)) {
                // Each figure is sampled a few times, apart: once is not yet "stays there".
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(50);
                    await("mounted at " + high, bean::getMountedVirtualThreadCount, n -> n == high, "== " + high);
                }
                bean.setParallelism(low);
                busy.sleep.set(true);
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(50);
                    await("mounted at " + low + ", sleeping", bean::getMountedVirtualThreadCount, n -> n <= low, "<= " + low);
                }
                busy.sleep.set(false);
                for (int i = 0; i < 3; i++) {
                    Thread.sleep(50);
                    await("mounted at " + low + ", spinning", bean::getMountedVirtualThreadCount, n -> n == low, "== " + low);
                }
            }
        } finally {
            bean.setParallelism(parallelism);
        }
    }

    private static void outsideAndInside(String figure, LongSupplier read) throws Exception {
        long outside = read.getAsLong();
        expect(outside >= 0, figure + " " + outside + " from a platform thread");
        AtomicReference<String> inside = new AtomicReference<>();
        Thread thread = Thread.ofVirtual().start(() -> inside.set(Thread.currentThread().isVirtual() + " " + read.getAsLong()));
        ConformanceSupport.join(thread);
        String seen = inside.get();
        expect(seen != null && seen.startsWith("true ") && Long.parseLong(seen.substring(5)) >= 1,
                figure + " from a virtual thread: " + seen);
    }

    private static void mounted(VirtualThreadSchedulerMXBean bean, boolean local) throws Exception {
        if (local) {
            outsideAndInside("mounted", bean::getMountedVirtualThreadCount);
        } else {
            long outside = bean.getMountedVirtualThreadCount();
            expect(outside >= 0, "mounted " + outside + " from a platform thread");
        }
        try (BusyThreads busy = new BusyThreads(1)) {
            await("mounted, one spinning", bean::getMountedVirtualThreadCount, n -> n >= 1, ">= 1");
        }
    }

    private static void queued(VirtualThreadSchedulerMXBean bean) throws Exception {
        int parallelism = bean.getParallelism();
        try (BusyThreads busy = new BusyThreads(parallelism)) {
            await("mounted", bean::getMountedVirtualThreadCount, n -> n >= parallelism, ">= " + parallelism);
            busy.start(QUEUED);
            await("queued", bean::getQueuedVirtualThreadCount, n -> n >= QUEUED, ">= " + QUEUED);
        }
    }

    private static void rejects(VirtualThreadSchedulerMXBean bean) throws CheckFailed {
        int parallelism = bean.getParallelism();
        try {
            bean.setParallelism(0);
            throw new CheckFailed("setParallelism(0) accepted; parallelism now " + bean.getParallelism());
        } catch (IllegalArgumentException expected) {
            expect(bean.getParallelism() == parallelism, "parallelism " + parallelism + " became " + bean.getParallelism());
        }
    }

    private static void sameScheduler(VirtualThreadSchedulerMXBean bean, VirtualThreadSchedulerMXBean other) throws CheckFailed {
        int parallelism = bean.getParallelism();
        try {
            bean.setParallelism(parallelism + 1);
            expect(other.getParallelism() == parallelism + 1,
                    "set " + (parallelism + 1) + ", the other way reads " + other.getParallelism());
            int procs = Gmp.scheduler().map(gmp -> gmp.procs()).orElse(parallelism + 1);
            expect(procs == parallelism + 1, "set " + (parallelism + 1) + ", GMP has " + procs + " Ps");
        } finally {
            bean.setParallelism(parallelism);
        }
    }

    private static void expect(boolean holds, String seen) throws CheckFailed {
        if (!holds) {
            throw new CheckFailed(seen);
        }
    }

    /** Polls {@code figure} until {@code wanted} holds, within {@link ConformanceSupport#BOUND}. */
    private static void await(String what, LongSupplier figure, LongPredicate wanted, String expected)
            throws CheckFailed, InterruptedException {
        long deadline = System.nanoTime() + BOUND.toNanos();
        long seen = figure.getAsLong();
        while (!wanted.test(seen)) {
            if (System.nanoTime() - deadline > 0) {
                throw new CheckFailed(what + " not " + expected + " within " + BOUND.toSeconds() + " s; last read " + seen);
            }
            Thread.sleep(5);
            seen = figure.getAsLong();
        }
    }

    /** The figures are int or long; one predicate type for both. */
    private interface LongPredicate {
        boolean test(long value);
    }

    /**
     * Virtual threads that spin (or, while {@link #sleep} is set, sleep 10 ms at a time) until
     * closed; closing ends them all, within {@link ConformanceSupport#BOUND}.
     */
    private static final class BusyThreads implements AutoCloseable {
        final AtomicBoolean sleep = new AtomicBoolean();
        private final AtomicBoolean done = new AtomicBoolean();
        private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

        BusyThreads(int count) {
            start(count);
        }

        void start(int count) {
            for (int i = 0; i < count; i++) {
                executor.submit(() -> {
                    while (!done.get()) {
                        if (sleep.get()) {
                            Thread.sleep(10);
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                });
            }
        }

        @Override
        public void close() throws InterruptedException {
            done.set(true);
            executor.shutdown();
            if (!executor.awaitTermination(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("busy virtual threads still running " + BOUND.toSeconds() + " s after being told to stop");
            }
        }
    }
}
