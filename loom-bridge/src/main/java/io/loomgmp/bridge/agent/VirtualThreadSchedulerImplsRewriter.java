package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.ClassPatch;

import static io.loomgmp.bridge.classfile.Bytecode.ARETURN;
import static io.loomgmp.bridge.classfile.Bytecode.CHECKCAST;
import static io.loomgmp.bridge.classfile.Bytecode.DUP;
import static io.loomgmp.bridge.classfile.Bytecode.IFNULL;
import static io.loomgmp.bridge.classfile.Bytecode.INVOKESTATIC;
import static io.loomgmp.bridge.classfile.Bytecode.POP;
import java.io.PrintStream;

/**
 * Makes the JDK's {@code jdk.management.VirtualThreadSchedulerMXBean} describe and control GMP:
 * JDK 25's {@code com.sun.management.internal.VirtualThreadSchedulerImpls.create()}, which the
 * platform MBean server calls for it, returns an implementation that works only on a
 * ForkJoinPool. The method gets a prefix that returns the agent's implementation
 * ({@link VirtualThreadSchedulerView}) from the hook, unless the hook has none:
 * <pre>
 *   invokestatic LoomGmpSchedulerHook.virtualThreadSchedulerMXBean()Object
 *   dup; ifnull  original
 *   checkcast    jdk/management/VirtualThreadSchedulerMXBean
 *   areturn
 * original:
 *   pop          // the hook's null
 *   ...the JDK's body, unchanged
 * </pre>
 * The class (module {@code jdk.management}) loads only when management is used; this rewrites
 * it then, so start-up pays nothing but the transformer's registration.
 */
final class VirtualThreadSchedulerImplsRewriter extends LazyJdkClassRewriter {
    static final String IMPLS = "com/sun/management/internal/VirtualThreadSchedulerImpls";
    static final String METHOD = "create";
    static final String MXBEAN = "jdk/management/VirtualThreadSchedulerMXBean";
    private static final String METHOD_DESCRIPTOR = "()L" + MXBEAN + ";";

    VirtualThreadSchedulerImplsRewriter(PrintStream warnings) {
        super(IMPLS, METHOD, METHOD_DESCRIPTOR, warnings);
    }

    @Override
    String lost() {
        return "the JDK's VirtualThreadSchedulerMXBean describes its unused ForkJoinPool, not GMP";
    }

    @Override
    Rewrite rewrite(ClassPatch patch, ClassPatch.Method target) {
        int hook = patch.methodref(SchedulerHook.INTERNAL_NAME, SchedulerHook.MXBEAN_METHOD, SchedulerHook.MXBEAN_DESCRIPTOR);
        int mxbean = patch.classEntry(MXBEAN);
        int object = patch.classEntry("java/lang/Object");
        byte[] prefix = {
            (byte) INVOKESTATIC, (byte) (hook >> 8), (byte) hook, // 0: invokestatic hook.virtualThreadSchedulerMXBean
            DUP,                                                  // 3: dup
            (byte) IFNULL, 0, 7,                                  // 4: ifnull 11
            (byte) CHECKCAST, (byte) (mxbean >> 8), (byte) mxbean, // 7: checkcast VirtualThreadSchedulerMXBean
            (byte) ARETURN,                                       // 10: areturn
            POP,                                                  // 11: pop (the label "original")
        };                                                        // 12: the JDK's body
        // At 11 there are no locals (a static method without parameters) and the stack holds the null.
        patch.prefix(target, prefix, 2, ClassPatch.sameLocalsOneObject(11, object)); // Unsupported says why
        return new Rewrite(patch.toBytes(), 1);
    }
}
