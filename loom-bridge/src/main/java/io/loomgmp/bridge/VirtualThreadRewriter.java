package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.FieldInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * Rewrites {@code java.lang.VirtualThread}'s constructor so that new virtual threads get the GMP
 * scheduler instead of the JDK's ForkJoinPool. On JDK 25 the constructor has exactly one
 * {@code getstatic DEFAULT_SCHEDULER}, on the path taken when no scheduler was given and the
 * creating thread is not virtual (a virtual parent passes its own scheduler on). It becomes
 * <pre>
 *   getstatic     VirtualThread.DEFAULT_SCHEDULER
 *   invokestatic  LoomGmpSchedulerHook.scheduler(Executor)Executor   // GMP, or the argument if none
 * </pre>
 * A method-body change only, which retransformation allows. The other reads of the field
 * ({@code defaultScheduler()} for jcmd and the JDK's scheduler MXBean, which require a
 * ForkJoinPool) are left alone.
 *
 * <p>It stays registered ({@link JdkClassRewriter}): a later retransformation of VirtualThread
 * would otherwise silently bring ForkJoinPool back.
 */
final class VirtualThreadRewriter extends JdkClassRewriter {
    static final String VIRTUAL_THREAD = "java/lang/VirtualThread";
    static final String FIELD = "DEFAULT_SCHEDULER";
    private static final ClassDesc CD_EXECUTOR = ClassDesc.of(Executor.class.getName());
    private static final MethodTypeDesc HOOK_TYPE = MethodTypeDesc.of(CD_EXECUTOR, CD_EXECUTOR);

    VirtualThreadRewriter() {
        super(VIRTUAL_THREAD);
    }

    @Override
    Rewrite apply(byte[] classBytes) {
        return rewrite(classBytes);
    }

    /** Rewrites every constructor read of DEFAULT_SCHEDULER; returns the bytes and the count. */
    static Rewrite rewrite(byte[] classBytes) {
        ClassFile classFile = ClassFile.of();
        ClassModel model = classFile.parse(classBytes);
        int[] sites = {0};
        CodeTransform hook = (code, element) -> {
            code.with(element);
            if (isDefaultSchedulerRead(element)) {
                code.invokestatic(SchedulerHook.CLASS_DESC, SchedulerHook.METHOD, HOOK_TYPE);
                sites[0]++;
            }
        };
        byte[] bytes = classFile.transformClass(model, ClassTransform.transformingMethodBodies(
                method -> method.methodName().equalsString("<init>"), hook));
        return new Rewrite(bytes, sites[0]);
    }

    /**
     * Checks that the running JDK's VirtualThread has the shape this rewrite expects.
     *
     * @return {@code null} if it does, else what differs
     */
    static String shapeProblem(Class<?> virtualThread, byte[] classBytes) {
        Field field;
        try {
            field = virtualThread.getDeclaredField(FIELD);
        } catch (NoSuchFieldException e) {
            return "java.lang.VirtualThread has no field " + FIELD;
        }
        if (!Modifier.isStatic(field.getModifiers()) || !Executor.class.isAssignableFrom(field.getType())) {
            return "java.lang.VirtualThread." + FIELD + " is not a static Executor (" + field + ")";
        }
        List<String> readers = defaultSchedulerReaders(classBytes);
        long constructorReads = readers.stream().filter(m -> m.startsWith("<init>")).count();
        if (constructorReads != 1) {
            return "expected one read of VirtualThread." + FIELD + " in a constructor, found "
                    + constructorReads + " (methods reading it: " + readers + ")";
        }
        return null;
    }

    /** Name and descriptor of every method of the class that reads DEFAULT_SCHEDULER, once per read. */
    static List<String> defaultSchedulerReaders(byte[] classBytes) {
        List<String> readers = new ArrayList<>();
        for (MethodModel method : ClassFile.of().parse(classBytes).methods()) {
            CodeModel code = method.code().orElse(null);
            if (code == null) {
                continue;
            }
            for (CodeElement element : code) {
                if (isDefaultSchedulerRead(element)) {
                    readers.add(method.methodName().stringValue() + method.methodType().stringValue());
                }
            }
        }
        return readers;
    }

    private static boolean isDefaultSchedulerRead(CodeElement element) {
        return element instanceof FieldInstruction field
                && field.opcode() == Opcode.GETSTATIC
                && field.owner().asInternalName().equals(VIRTUAL_THREAD)
                && field.name().equalsString(FIELD);
    }
}
