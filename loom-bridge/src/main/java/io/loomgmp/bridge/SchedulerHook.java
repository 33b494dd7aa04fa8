package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.util.concurrent.Executor;

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
 *     static Executor scheduler(Executor jdkDefault) {     // called by VirtualThread.&lt;init&gt;
 *         Executor s = scheduler;
 *         return s != null ? s : jdkDefault;
 *     }
 * }
 * </pre>
 * The agent installs the scheduler before it rewrites the constructor, so the fallback is never
 * taken in practice.
 */
final class SchedulerHook {
    static final String CLASS_NAME = "java.lang.LoomGmpSchedulerHook";
    static final ClassDesc CLASS_DESC = ClassDesc.of(CLASS_NAME);
    static final String METHOD = "scheduler";
    private static final String FIELD = "scheduler";
    private static final ClassDesc CD_EXECUTOR = ClassDesc.of(Executor.class.getName());

    private SchedulerHook() {
    }

    /**
     * Defines the hook in {@code java.lang} and installs {@code scheduler} in it. The caller's
     * module must have {@code java.lang} opened to it.
     *
     * @throws IllegalStateException if a hook is already defined (the agent was loaded twice)
     */
    static void define(Executor scheduler) throws IllegalAccessException, NoSuchFieldException {
        try {
            Class.forName(CLASS_NAME, false, null);
            throw new IllegalStateException(CLASS_NAME + " is already defined: is the loom-gmp agent loaded twice?");
        } catch (ClassNotFoundException expected) {
            // not defined yet
        }
        MethodHandles.Lookup inJavaLang = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup());
        Class<?> hook = inJavaLang.defineClass(classBytes());
        MethodHandles.privateLookupIn(hook, MethodHandles.lookup())
                .findStaticVarHandle(hook, FIELD, Executor.class)
                .setVolatile(scheduler);
    }

    static byte[] classBytes() {
        return ClassFile.of().build(CLASS_DESC, type -> type
                .withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withField(FIELD, CD_EXECUTOR, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
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
