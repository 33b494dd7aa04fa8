package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * The class that the rewritten VirtualThread constructor calls for its scheduler. It has to be
 * visible from {@code java.base}, so it is generated here and defined <em>in</em>
 * {@code java.lang} (through a private lookup on {@code Thread}, once the agent has opened the
 * package to itself): no jar on the boot class path, no temporary file, and no loss of class
 * data sharing for application classes, which appending to the boot class path would cost.
 * It depends on {@code java.base} only:
 * <pre>
 * final class java.lang.LoomGmpSchedulerHook {
 *     static volatile Executor scheduler;                  // set once by the agent
 *     static volatile MethodHandle timers;                 // set once by the agent, if timers are on
 *     static Executor scheduler(Executor jdkDefault) {     // called by VirtualThread.&lt;init&gt;
 *         Executor s = scheduler;
 *         return s != null ? s : jdkDefault;
 *     }
 *     // called by VirtualThread.schedule: a GMP timer, or null for the JDK's own way
 *     static Future schedule(Executor vthreadScheduler, Runnable task, long delay, TimeUnit unit) {
 *         MethodHandle t = timers;
 *         return t == null ? null : (Future) t.invokeExact(vthreadScheduler, task, delay, unit);
 *     }
 * }
 * </pre>
 * The agent installs the scheduler and the timers before it rewrites VirtualThread, so the
 * fallbacks are not taken in practice. {@code timers} is {@link #timeout}: a timer of the thread's
 * GMP scheduler, for a virtual thread on one.
 */
final class SchedulerHook {
    static final String CLASS_NAME = "java.lang.LoomGmpSchedulerHook";
    static final ClassDesc CLASS_DESC = ClassDesc.of(CLASS_NAME);
    static final String METHOD = "scheduler";
    static final String SCHEDULE_METHOD = "schedule";
    private static final String FIELD = "scheduler";
    private static final String TIMERS_FIELD = "timers";
    private static final ClassDesc CD_EXECUTOR = ClassDesc.of(Executor.class.getName());
    private static final ClassDesc CD_METHOD_HANDLE = ClassDesc.of(MethodHandle.class.getName());
    private static final MethodType TIMEOUT_TYPE =
            MethodType.methodType(Future.class, Executor.class, Runnable.class, long.class, TimeUnit.class);
    static final MethodTypeDesc SCHEDULE_TYPE = MethodTypeDesc.ofDescriptor(TIMEOUT_TYPE.toMethodDescriptorString());

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
     * {@code timers}, {@link #timeout} as its timers. The caller's module must have
     * {@code java.lang} opened to it.
     *
     * @throws IllegalStateException if a hook is already defined (the agent was loaded twice)
     */
    static void define(Executor scheduler, boolean timers)
            throws IllegalAccessException, NoSuchFieldException, NoSuchMethodException {
        try {
            Class.forName(CLASS_NAME, false, null);
            throw new IllegalStateException(CLASS_NAME + " is already defined: is the loom-gmp agent loaded twice?");
        } catch (ClassNotFoundException expected) {
            // not defined yet
        }
        MethodHandles.Lookup inJavaLang = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup());
        Class<?> hook = inJavaLang.defineClass(classBytes());
        MethodHandles.Lookup inHook = MethodHandles.privateLookupIn(hook, MethodHandles.lookup());
        inHook.findStaticVarHandle(hook, FIELD, Executor.class).setVolatile(scheduler);
        if (timers) {
            MethodHandle timeout = MethodHandles.lookup().findStatic(SchedulerHook.class, "timeout", TIMEOUT_TYPE);
            inHook.findStaticVarHandle(hook, TIMERS_FIELD, MethodHandle.class).setVolatile(timeout);
        }
    }

    static byte[] classBytes() {
        return ClassFile.of().build(CLASS_DESC, type -> type
                .withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withField(FIELD, CD_EXECUTOR, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withField(TIMERS_FIELD, CD_METHOD_HANDLE, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withMethodBody(SCHEDULE_METHOD, SCHEDULE_TYPE, ClassFile.ACC_STATIC, code -> {
                    Label jdk = code.newLabel();
                    code.getstatic(CLASS_DESC, TIMERS_FIELD, CD_METHOD_HANDLE)
                            .dup()
                            .ifnull(jdk)
                            .aload(0)
                            .aload(1)
                            .lload(2)
                            .aload(4)
                            .invokevirtual(CD_METHOD_HANDLE, "invokeExact", SCHEDULE_TYPE)
                            .areturn()
                            .labelBinding(jdk)
                            .pop()
                            .aconst_null()
                            .areturn();
                })
                .withMethodBody(METHOD, MethodTypeDesc.of(CD_EXECUTOR, CD_EXECUTOR), ClassFile.ACC_STATIC, code -> {
                    Label useJdkDefault = code.newLabel();
                    code.getstatic(CLASS_DESC, FIELD, CD_EXECUTOR)
                            .dup()
                            .ifnull(useJdkDefault)
                            .areturn()
                            .labelBinding(useJdkDefault)
                            .pop()
                            .aload(0)
                            .areturn();
                }));
    }
}
