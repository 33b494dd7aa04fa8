package example.app;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.bridge.probe.CarrierProbe;
import io.loomgmp.bridge.probe.ReshapingAgent;
import jdk.management.VirtualThreadSchedulerMXBean;

import javax.management.ObjectName;
import java.lang.invoke.MethodHandles;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Run with {@link ReshapingAgent} before loom-gmp's agent: prints, as {@code key=value} lines,
 * whether anything of GMP is in force. Which carrier each way of making a virtual thread lands
 * on (a sleep included, so the timeout path too); the scheduler {@link Gmp#scheduler()} names;
 * the live threads named {@code gmp-*}; the scheduler hook's fields, if the hook is defined;
 * whether a class with a loop was given preemption polls (in an application's package, so the
 * agent would give it some); which class implements the JDK's scheduler MXBean; what
 * {@code jcmd Thread.vthread_scheduler} prints (through the DiagnosticCommand MBean, in this
 * JVM); and the carrier of a virtual thread made after VirtualThread is retransformed again with
 * the reshaping stopped, which loom-gmp's rewriter, were it still registered, would rewrite.
 * Needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} to read the hook.
 */
public final class FailOpenProbe {
    public static void main(String[] args) throws Exception {
        AtomicReference<String> carrier = new AtomicReference<>();
        Runnable record = () -> carrier.set(CarrierProbe.carrierOf(Thread.currentThread()));

        Thread.ofVirtual().start(record).join();
        System.out.println("ofVirtual=" + carrier.get());
        Thread.startVirtualThread(record).join();
        System.out.println("startVirtualThread=" + carrier.get());
        try (ExecutorService perTask = Executors.newVirtualThreadPerTaskExecutor()) {
            perTask.submit(record).get();
        }
        System.out.println("newVirtualThreadPerTaskExecutor=" + carrier.get());
        Thread.ofVirtual().start(() -> {
            try {
                Thread.ofVirtual().start(record).join();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }).join();
        System.out.println("childOfVirtual=" + carrier.get());
        Thread.ofVirtual().start(() -> {
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            record.run();
        }).join();
        System.out.println("afterSleep=" + carrier.get());

        System.out.println("gmpScheduler=" + (Gmp.scheduler().isPresent() ? "present" : "empty"));
        System.out.println("hook=" + hook());
        System.out.println("polled=" + polled());
        System.out.println("jdkMXBean=" + ManagementFactory.getPlatformMXBean(VirtualThreadSchedulerMXBean.class)
                .getClass().getName());
        System.out.println("jcmd=" + jcmdScheduler());

        ReshapingAgent.stopReshaping();
        ReshapingAgent.retransform(Class.forName("java.lang.VirtualThread"));
        String afterRetransform;
        try {
            Thread.ofVirtual().start(record).join();
            afterRetransform = carrier.get();
        } catch (Throwable e) {
            afterRetransform = "failed: " + e;
        }
        System.out.println("afterRetransform=" + afterRetransform);
        // Last, after JMX is up: the MXBean registration thread, had it started, would be alive.
        System.out.println("gmpThreads=" + gmpThreads());
    }

    /** A class with a loop and no reference to loom-gmp, which the agent would give a poll. */
    static final class Looping {
        static int count(int n) {
            int loops = 0;
            for (int i = 0; i < n; i++) {
                loops++;
            }
            return loops;
        }
    }

    /** Whether {@link Looping} was loaded with a call of loom-gmp's {@code Gmp.checkpoint()}. */
    static String polled() throws Exception {
        if (Looping.count(3) != 3) {
            throw new AssertionError("the loop");
        }
        byte[] loaded = ReshapingAgent.loadedBytes(Looping.class);
        return String.valueOf(new String(loaded, StandardCharsets.ISO_8859_1).contains("io/loomgmp/bridge/Gmp"));
    }

    /** {@code undefined}, or the values of the hook's three fields. */
    private static String hook() throws Exception {
        Class<?> hook;
        try {
            hook = Class.forName("java.lang.LoomGmpSchedulerHook", false, null);
        } catch (ClassNotFoundException e) {
            return "undefined";
        }
        MethodHandles.Lookup inHook = MethodHandles.privateLookupIn(hook, MethodHandles.lookup());
        List<String> fields = new ArrayList<>();
        for (String field : List.of("scheduler", "timers", "mxbean")) {
            Object value = inHook.findStaticVarHandle(hook, field, hook.getDeclaredField(field).getType()).getVolatile();
            fields.add(field + ":" + (value == null ? "null" : "set"));
        }
        return String.join(",", fields);
    }

    /** The first line of {@code jcmd <this pid> Thread.vthread_scheduler}, or what it threw. */
    private static String jcmdScheduler() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "threadVthreadScheduler",
                    new Object[] {new String[0]}, new String[] {String[].class.getName()});
            return String.valueOf(out).strip().lines().findFirst().orElse("");
        } catch (Exception e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            return "failed: " + cause;
        }
    }

    private static String gmpThreads() {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith("gmp-")) {
                names.add(thread.getName());
            }
        }
        names.sort(null);
        return names.isEmpty() ? "none" : String.join(",", names);
    }
}
