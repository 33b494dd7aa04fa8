package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Label;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.instrument.ClassFileTransformer;
import java.security.ProtectionDomain;

/**
 * Prefixes {@code ForkJoinWorkerThread.hasKnownQueuedWork()} with GMP's answer
 * ({@link QueuedWorkHook}):
 * <pre>
 *   invokestatic LoomGmpQueuedWorkHook.queuedWork()Z
 *   ifeq         original
 *   iconst_1
 *   ireturn
 * original:
 *   ...the JDK's body, unchanged (ForkJoinPool's own answer)
 * </pre>
 * A method-body change, which retransformation allows. Like {@link VirtualThreadRewriter} it
 * stays registered, so that a later retransformation keeps the prefix, and keeps the outcome of
 * its last run for the agent to check (the JVM swallows a transformer's exceptions).
 */
final class ForkJoinWorkerThreadRewriter implements ClassFileTransformer {
    static final String FORK_JOIN_WORKER_THREAD = "java/util/concurrent/ForkJoinWorkerThread";
    static final String METHOD = "hasKnownQueuedWork";
    private static final MethodTypeDesc METHOD_TYPE = MethodTypeDesc.of(ConstantDescs.CD_boolean);

    private volatile int lastRewrites = -1;
    private volatile Throwable lastFailure;

    @Override
    public byte[] transform(Module module, ClassLoader loader, String className, Class<?> redefined,
                            ProtectionDomain domain, byte[] classBytes) {
        if (loader != null || !FORK_JOIN_WORKER_THREAD.equals(className)) {
            return null;
        }
        try {
            int[] sites = {0};
            byte[] bytes = rewrite(classBytes, sites);
            lastRewrites = sites[0];
            return sites[0] == 0 ? null : bytes;
        } catch (Throwable e) {
            lastFailure = e;
            return null;
        }
    }

    int lastRewrites() {
        return lastRewrites;
    }

    Throwable lastFailure() {
        return lastFailure;
    }

    /** Prefixes every static {@code hasKnownQueuedWork()Z} (one on JDK 25); counts them in {@code sites[0]}. */
    static byte[] rewrite(byte[] classBytes, int[] sites) {
        ClassFile classFile = ClassFile.of();
        CodeTransform prefix = CodeTransform.ofStateful(() -> new CodeTransform() {
            private boolean done;

            @Override
            public void accept(java.lang.classfile.CodeBuilder code, java.lang.classfile.CodeElement element) {
                if (!done) {
                    done = true;
                    Label original = code.newLabel();
                    code.invokestatic(QueuedWorkHook.CLASS_DESC, QueuedWorkHook.METHOD, QueuedWorkHook.METHOD_TYPE)
                            .ifeq(original)
                            .iconst_1()
                            .ireturn()
                            .labelBinding(original);
                    sites[0]++;
                }
                code.with(element);
            }
        });
        return classFile.transformClass(classFile.parse(classBytes), ClassTransform.transformingMethodBodies(
                method -> method.methodName().equalsString(METHOD)
                        && method.methodType().equalsString(METHOD_TYPE.descriptorString())
                        && (method.flags().flagsMask() & ClassFile.ACC_STATIC) != 0,
                prefix));
    }
}
