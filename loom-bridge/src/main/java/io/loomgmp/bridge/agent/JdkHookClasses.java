package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentJar;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.Label;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The two classes the agent defines inside the JDK ({@link SchedulerHook}, {@link QueuedWorkHook}),
 * built with the ClassFile API <em>when the agent is built</em>: the build runs {@link #main}
 * after compiling, which writes their bytes under {@link #DIRECTORY} in the classes directory,
 * and the agent reads them from its jar at start-up ({@link #read}). Building them in every JVM
 * that starts with the agent cost it the ClassFile API's first use, tens of milliseconds of
 * start-up, for two classes that never change. A test checks that the bytes in the jar are the
 * ones this class builds.
 */
public final class JdkHookClasses {
    /** Where, among the agent's resources, the bytes are: one {@code <class name>.bytes} each. */
    static final String DIRECTORY = "io/loomgmp/bridge/jdk-hooks/";
    private static final ClassDesc CD_EXECUTOR = ClassDesc.of("java.util.concurrent.Executor");
    private static final ClassDesc CD_METHOD_HANDLE = ClassDesc.of("java.lang.invoke.MethodHandle");
    private static final ClassDesc CD_SUPPLIER = ClassDesc.of("java.util.function.BooleanSupplier");
    private static final ClassDesc CD_OBJECT_SUPPLIER = ClassDesc.of("java.util.function.Supplier");
    private static final ClassDesc CD_ILLEGAL_STATE = ClassDesc.of("java.lang.IllegalStateException");

    private JdkHookClasses() {
    }

    /** Writes the bytes of both classes under {@code args[0]}, the classes directory. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: JdkHookClasses <classes directory>");
        }
        for (Map.Entry<String, byte[]> hook : build().entrySet()) {
            Path file = Path.of(args[0], DIRECTORY, hook.getKey() + ".bytes");
            Files.createDirectories(file.getParent());
            Files.write(file, hook.getValue());
        }
    }

    /** The classes by name, as built here. */
    static Map<String, byte[]> build() {
        return Map.of(SchedulerHook.CLASS_NAME, schedulerHook(), QueuedWorkHook.CLASS_NAME, queuedWorkHook());
    }

    /**
     * The bytes of the class named {@code className}, from the agent's resources.
     *
     * @throws IllegalStateException if they are missing (a build that skipped {@link #main})
     */
    static byte[] read(String className) {
        String resource = DIRECTORY + className + ".bytes";
        byte[] bytes;
        try {
            bytes = AgentJar.read(resource);
        } catch (IOException e) {
            throw new IllegalStateException("loom-gmp: cannot read " + resource + ": " + e, e);
        }
        if (bytes == null) {
            throw new IllegalStateException("loom-gmp: " + resource + " is missing from the agent's jar");
        }
        return bytes;
    }

    static byte[] schedulerHook() {
        ClassDesc self = ClassDesc.of(SchedulerHook.CLASS_NAME);
        MethodTypeDesc schedule = MethodTypeDesc.ofDescriptor(SchedulerHook.SCHEDULE_DESCRIPTOR);
        MethodTypeDesc mxbean = MethodTypeDesc.ofDescriptor(SchedulerHook.MXBEAN_DESCRIPTOR);
        // Public, with public scheduler() and virtualThreadSchedulerMXBean(): called from
        // jdk.internal.vm.JcmdVThreadCommands and jdk.management's VirtualThreadSchedulerImpls,
        // outside java.lang. The fields stay package-private.
        return ClassFile.of().build(self, type -> type
                .withFlags(ClassFile.ACC_PUBLIC | ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withField(SchedulerHook.FIELD, CD_EXECUTOR, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withField(SchedulerHook.TIMERS_FIELD, CD_METHOD_HANDLE, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withField(SchedulerHook.MXBEAN_FIELD, CD_OBJECT_SUPPLIER, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withMethodBody(SchedulerHook.MXBEAN_METHOD, mxbean, ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, code -> {
                    Label none = code.newLabel();
                    code.getstatic(self, SchedulerHook.MXBEAN_FIELD, CD_OBJECT_SUPPLIER)
                            .dup()
                            .ifnull(none)
                            .invokeinterface(CD_OBJECT_SUPPLIER, "get", MethodTypeDesc.of(ConstantDescs.CD_Object))
                            .areturn()
                            .labelBinding(none)
                            .areturn(); // the null
                })
                .withMethodBody(SchedulerHook.SCHEDULE_METHOD, schedule, ClassFile.ACC_STATIC, code -> {
                    Label jdk = code.newLabel();
                    code.getstatic(self, SchedulerHook.TIMERS_FIELD, CD_METHOD_HANDLE)
                            .dup()
                            .ifnull(jdk)
                            .aload(0)
                            .aload(1)
                            .lload(2)
                            .aload(4)
                            .invokevirtual(CD_METHOD_HANDLE, "invokeExact", schedule)
                            .areturn()
                            .labelBinding(jdk)
                            .pop()
                            .aconst_null()
                            .areturn();
                })
                .withMethodBody(SchedulerHook.METHOD, MethodTypeDesc.ofDescriptor(SchedulerHook.METHOD_DESCRIPTOR),
                        ClassFile.ACC_PUBLIC | ClassFile.ACC_STATIC, code -> {
                            Label none = code.newLabel();
                            code.getstatic(self, SchedulerHook.FIELD, CD_EXECUTOR)
                                    .dup()
                                    .ifnull(none)
                                    .areturn()
                                    .labelBinding(none)
                                    .new_(CD_ILLEGAL_STATE)
                                    .dup()
                                    .ldc("loom-gmp: a virtual thread was created before the agent installed its scheduler")
                                    .invokespecial(CD_ILLEGAL_STATE, ConstantDescs.INIT_NAME,
                                            MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_String))
                                    .athrow();
                        }));
    }

    static byte[] queuedWorkHook() {
        ClassDesc self = ClassDesc.of(QueuedWorkHook.CLASS_NAME);
        MethodTypeDesc type = MethodTypeDesc.ofDescriptor(QueuedWorkHook.METHOD_DESCRIPTOR);
        return ClassFile.of().build(self, clazz -> clazz
                .withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SYNTHETIC)
                .withField(QueuedWorkHook.FIELD, CD_SUPPLIER, ClassFile.ACC_STATIC | ClassFile.ACC_VOLATILE)
                .withMethodBody(QueuedWorkHook.METHOD, type, ClassFile.ACC_STATIC, code -> {
                    Label none = code.newLabel();
                    code.getstatic(self, QueuedWorkHook.FIELD, CD_SUPPLIER)
                            .dup()
                            .ifnull(none)
                            .invokeinterface(CD_SUPPLIER, "getAsBoolean", type)
                            .ireturn()
                            .labelBinding(none)
                            .pop()
                            .iconst_0()
                            .ireturn();
                }));
    }
}
