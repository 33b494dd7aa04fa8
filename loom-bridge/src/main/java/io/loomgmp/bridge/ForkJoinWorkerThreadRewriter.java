package io.loomgmp.bridge;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.Label;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;

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
 * A method-body change, which retransformation allows. It stays registered, like every
 * {@link JdkClassRewriter}, so that a later retransformation keeps the prefix.
 */
final class ForkJoinWorkerThreadRewriter extends JdkClassRewriter {
    static final String FORK_JOIN_WORKER_THREAD = "java/util/concurrent/ForkJoinWorkerThread";
    static final String METHOD = "hasKnownQueuedWork";
    private static final MethodTypeDesc METHOD_TYPE = MethodTypeDesc.of(ConstantDescs.CD_boolean);

    ForkJoinWorkerThreadRewriter() {
        super(FORK_JOIN_WORKER_THREAD);
    }

    @Override
    Rewrite apply(byte[] classBytes) {
        return rewrite(classBytes);
    }

    /** Prefixes every static {@code hasKnownQueuedWork()Z} (one on JDK 25). */
    static Rewrite rewrite(byte[] classBytes) {
        int[] sites = {0};
        ClassFile classFile = ClassFile.of();
        CodeTransform prefix = CodeTransform.ofStateful(() -> new CodeTransform() {
            private boolean done;

            @Override
            public void accept(CodeBuilder code, CodeElement element) {
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
        byte[] bytes = classFile.transformClass(classFile.parse(classBytes), ClassTransform.transformingMethodBodies(
                method -> method.methodName().equalsString(METHOD)
                        && method.methodType().equalsString(METHOD_TYPE.descriptorString())
                        && (method.flags().flagsMask() & ClassFile.ACC_STATIC) != 0,
                prefix));
        return new Rewrite(bytes, sites[0]);
    }
}
