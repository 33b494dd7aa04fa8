package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.ContinuationExecutor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The class that the rewritten VirtualThread constructor calls for its scheduler. It has to be
 * visible from {@code java.base}, so it is defined <em>in</em> {@code java.lang} (through a
 * private lookup on {@code Thread}, once the agent has opened the package to itself): no jar on
 * the boot class path, no temporary file, and no loss of class data sharing for application
 * classes, which appending to the boot class path would cost. Its bytes are made when the agent
 * is built ({@link JdkHookClasses}) and read from the agent's jar ({@link JdkHookClasses#read}).
 * It depends on {@code java.base} only:
 * <pre>
 * public final class java.lang.LoomGmpSchedulerHook {
 *     static volatile Executor scheduler;                  // set once by the agent
 *     static volatile MethodHandle timers;                 // set once by the agent, if timers are on
 *     static volatile Supplier mxbean;                     // set once by the agent
 *     // called by VirtualThread.&lt;init&gt;, and by JcmdVThreadCommands.printScheduler (JcmdSchedulerRewriter)
 *     public static Executor scheduler() {
 *         Executor s = scheduler;
 *         if (s == null) throw new IllegalStateException(...);
 *         return s;
 *     }
 *     // called by VirtualThread.schedule: a GMP timer, or null for the JDK's own way
 *     static Future schedule(Executor vthreadScheduler, Runnable task, long delay, TimeUnit unit) {
 *         MethodHandle t = timers;
 *         return t == null ? null : (Future) t.invokeExact(vthreadScheduler, task, delay, unit);
 *     }
 *     // called by jdk.management's VirtualThreadSchedulerImpls.create (VirtualThreadSchedulerImplsRewriter):
 *     // GMP's jdk.management.VirtualThreadSchedulerMXBean, or null for the JDK's own
 *     public static Object virtualThreadSchedulerMXBean() {
 *         Supplier m = mxbean;
 *         return m == null ? null : m.get();
 *     }
 * }
 * </pre>
 * The class and those two methods are public because classes outside {@code java.lang} call
 * them; that exposes nothing an application could not reach already (the JDK's MXBean and
 * {@code Thread.ofVirtual()}). The agent installs the scheduler and the timers before it
 * rewrites VirtualThread, and takes them back ({@link #clear}) only when VirtualThread was not
 * rewritten, so neither the exception nor the fallback is seen in practice. {@code timers} is {@link #timeout}: a timer
 * of the thread's GMP scheduler, for a virtual thread on one.
 */
final class SchedulerHook {
    static final String CLASS_NAME = "java.lang.LoomGmpSchedulerHook";
    static final String INTERNAL_NAME = "java/lang/LoomGmpSchedulerHook";
    static final String METHOD = "scheduler";
    static final String METHOD_DESCRIPTOR = "()Ljava/util/concurrent/Executor;";
    static final String SCHEDULE_METHOD = "schedule";
    static final String SCHEDULE_DESCRIPTOR =
            "(Ljava/util/concurrent/Executor;Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)Ljava/util/concurrent/Future;";
    static final String FIELD = "scheduler";
    static final String TIMERS_FIELD = "timers";
    static final String MXBEAN_FIELD = "mxbean";
    static final String MXBEAN_METHOD = "virtualThreadSchedulerMXBean";
    static final String MXBEAN_DESCRIPTOR = "()Ljava/lang/Object;";
    private static final MethodType TIMEOUT_TYPE =
            MethodType.methodType(Future.class, Executor.class, Runnable.class, long.class, TimeUnit.class);

    private SchedulerHook() {
    }

    /**
     * The target of the hook's {@code timers}: a timer of the virtual thread's scheduler when that
     * is a GMP one ({@link ContinuationExecutor}), else {@code null} (the JDK's own timers).
     */
    static Future<?> timeout(Executor vthreadScheduler, Runnable task, long delay, TimeUnit unit) {
        if (vthreadScheduler instanceof ContinuationExecutor gmp) {
            return gmp.scheduler().schedule(task, unit.toNanos(delay));
        }
        return null;
    }

    /**
     * Defines the hook in {@code java.lang} and installs {@code scheduler} in it, and, if
     * {@code timers}, {@link #timeout} as its timers, and {@code mxbean} (or none: null), the
     * maker of the JDK's scheduler MXBean. The caller's module must have
     * {@code java.lang} opened to it.
     *
     * @throws IllegalStateException if a hook is already defined (the agent was loaded twice)
     */
    static void define(Executor scheduler, boolean timers, Supplier<Object> mxbean)
            throws IllegalAccessException, NoSuchFieldException, NoSuchMethodException {
        try {
            Class.forName(CLASS_NAME, false, null);
            throw new IllegalStateException(CLASS_NAME + " is already defined: is the loom-gmp agent loaded twice?");
        } catch (ClassNotFoundException expected) {
            // not defined yet
        }
        MethodHandles.Lookup inJavaLang = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup());
        Class<?> hook = inJavaLang.defineClass(JdkHookClasses.read(CLASS_NAME));
        MethodHandles.Lookup inHook = MethodHandles.privateLookupIn(hook, MethodHandles.lookup());
        inHook.findStaticVarHandle(hook, FIELD, Executor.class).setVolatile(scheduler);
        if (mxbean != null) {
            inHook.findStaticVarHandle(hook, MXBEAN_FIELD, Supplier.class).setVolatile(mxbean);
        }
        if (timers) {
            MethodHandle timeout = MethodHandles.lookup().findStatic(SchedulerHook.class, "timeout", TIMEOUT_TYPE);
            inHook.findStaticVarHandle(hook, TIMERS_FIELD, MethodHandle.class).setVolatile(timeout);
        }
    }

    /**
     * Takes back what {@link #define} installed, when start-up fails before VirtualThread is
     * rewritten ({@link Rollback}): the hook, which cannot be undefined, then holds no scheduler,
     * timers or MXBean maker, so that it keeps none of them alive; nothing calls it while
     * VirtualThread is not rewritten, and should anything call {@code scheduler()}, it throws,
     * as before {@code define}.
     *
     * @throws ClassNotFoundException if the hook is not defined
     */
    static void clear() throws ReflectiveOperationException {
        Class<?> hook = Class.forName(CLASS_NAME, false, null);
        MethodHandles.Lookup inHook = MethodHandles.privateLookupIn(hook, MethodHandles.lookup());
        inHook.findStaticVarHandle(hook, FIELD, Executor.class).setVolatile((Executor) null);
        inHook.findStaticVarHandle(hook, MXBEAN_FIELD, Supplier.class).setVolatile((Supplier<?>) null);
        inHook.findStaticVarHandle(hook, TIMERS_FIELD, MethodHandle.class).setVolatile((MethodHandle) null);
    }
}
