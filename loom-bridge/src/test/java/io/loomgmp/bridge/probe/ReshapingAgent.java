package io.loomgmp.bridge.probe;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.instrument.UnmodifiableClassException;
import java.security.ProtectionDomain;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Java agent for tests that gives {@code java.lang.VirtualThread} another shape, as a JDK patch
 * release or a vendor's build might. Loaded before loom-gmp's agent
 * ({@code -javaagent:<jar>=MODE -javaagent:loom-gmp-agent.jar}), it registers a retransforming
 * transformer; when loom-gmp retransforms VirtualThread, the JVM hands each retransforming
 * transformer the output of the one registered before it, so loom-gmp's rewriter gets the class
 * as this agent made it. Modes:
 * <ul>
 *   <li>{@code constructor}: the constructor's {@code getstatic DEFAULT_SCHEDULER} becomes
 *       {@code invokestatic defaultScheduler()}, which returns that field: virtual threads work
 *       as before, on the JDK's ForkJoinPool, but loom-gmp finds no read of the field to rewrite.</li>
 *   <li>{@code none}: the same transformer, leaving the class as it is (the control: loom-gmp
 *       then rewrites it).</li>
 * </ul>
 * It keeps its Instrumentation, so that a probe can read the bytes a class was loaded with
 * ({@link #loadedBytes}) and retransform VirtualThread again after {@link #stopReshaping}.
 */
public final class ReshapingAgent {
    static final String VIRTUAL_THREAD = "java/lang/VirtualThread";
    private static final ClassDesc CD_VIRTUAL_THREAD = ClassDesc.ofInternalName(VIRTUAL_THREAD);
    private static final MethodTypeDesc DEFAULT_SCHEDULER_METHOD =
            MethodTypeDesc.of(ClassDesc.of("java.util.concurrent.Executor"));

    private static volatile Instrumentation instrumentation;
    private static volatile boolean reshaping;

    private ReshapingAgent() {
    }

    public static void premain(String mode, Instrumentation inst) {
        reshaping = switch (String.valueOf(mode)) {
            case "constructor" -> true;
            case "none" -> false;
            default -> throw new IllegalArgumentException("ReshapingAgent: mode constructor or none, not " + mode);
        };
        instrumentation = inst;
        inst.addTransformer(new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                                    ProtectionDomain domain, byte[] bytes) {
                if (!reshaping || loader != null || !VIRTUAL_THREAD.equals(name)) {
                    return null;
                }
                try {
                    return reshape(bytes);
                } catch (Throwable e) {
                    e.printStackTrace(); // the JVM would swallow it, and the test would not say why
                    return null;
                }
            }
        }, true);
    }

    /**
     * VirtualThread's bytes with each read of {@code DEFAULT_SCHEDULER} in a constructor replaced
     * by a call of the static {@code defaultScheduler()}, which returns it.
     */
    public static byte[] reshape(byte[] virtualThread) {
        ClassFile classFile = ClassFile.of();
        return classFile.transformClass(classFile.parse(virtualThread), ClassTransform.transformingMethodBodies(
                method -> method.methodName().equalsString(ConstantDescs.INIT_NAME),
                CodeTransform.ofStateful(() -> (code, element) -> {
                    if (element instanceof FieldInstruction field && field.opcode() == java.lang.classfile.Opcode.GETSTATIC
                            && field.owner().asInternalName().equals(VIRTUAL_THREAD)
                            && field.name().equalsString("DEFAULT_SCHEDULER")) {
                        code.invokestatic(CD_VIRTUAL_THREAD, "defaultScheduler", DEFAULT_SCHEDULER_METHOD);
                    } else {
                        code.with(element);
                    }
                })));
    }

    /** From now on VirtualThread is left as it is, when it is next retransformed. */
    public static void stopReshaping() {
        reshaping = false;
    }

    /** Retransforms {@code classes}: each retransforming transformer sees them again. */
    public static void retransform(Class<?>... classes) throws UnmodifiableClassException {
        instrumentation.retransformClasses(classes);
    }

    /**
     * The bytes {@code type} was defined with, as far as a retransforming transformer sees them:
     * those of the class file after every transformer that cannot retransform (loom-gmp's
     * preemption polls are one), before the retransforming ones.
     */
    public static byte[] loadedBytes(Class<?> type) throws UnmodifiableClassException {
        AtomicReference<byte[]> seen = new AtomicReference<>();
        ClassFileTransformer capture = new ClassFileTransformer() {
            @Override
            public byte[] transform(Module module, ClassLoader loader, String name, Class<?> redefined,
                                    ProtectionDomain domain, byte[] bytes) {
                if (redefined == type) {
                    seen.set(bytes.clone());
                }
                return null;
            }
        };
        instrumentation.addTransformer(capture, true);
        try {
            instrumentation.retransformClasses(type);
        } finally {
            instrumentation.removeTransformer(capture);
        }
        if (seen.get() == null) {
            throw new IllegalStateException("the JVM did not hand " + type + " to a retransforming transformer");
        }
        return seen.get();
    }
}
