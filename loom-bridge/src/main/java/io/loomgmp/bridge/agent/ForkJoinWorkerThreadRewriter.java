package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.ClassPatch;

import static io.loomgmp.bridge.classfile.Bytecode.ICONST_1;
import static io.loomgmp.bridge.classfile.Bytecode.IFEQ;
import static io.loomgmp.bridge.classfile.Bytecode.INVOKESTATIC;
import static io.loomgmp.bridge.classfile.Bytecode.IRETURN;

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
 * A method-body change, which retransformation allows, made on the bytes ({@link ClassPatch}). It
 * stays registered, like every {@link JdkClassRewriter}, so that a later retransformation keeps
 * the prefix.
 */
final class ForkJoinWorkerThreadRewriter extends JdkClassRewriter {
    static final String FORK_JOIN_WORKER_THREAD = "java/util/concurrent/ForkJoinWorkerThread";
    static final String METHOD = "hasKnownQueuedWork";
    private static final String METHOD_DESCRIPTOR = "()Z";

    ForkJoinWorkerThreadRewriter() {
        super(FORK_JOIN_WORKER_THREAD);
    }

    @Override
    Rewrite apply(byte[] classBytes) {
        return rewrite(classBytes);
    }

    /** Prefixes the static {@code hasKnownQueuedWork()Z}; no sites if there is none. */
    static Rewrite rewrite(byte[] classBytes) {
        ClassPatch patch = ClassPatch.of(classBytes);
        ClassPatch.Method target = patch.method(METHOD, METHOD_DESCRIPTOR, true);
        if (target == null) {
            return new Rewrite(null, 0);
        }
        int hook = patch.methodref(QueuedWorkHook.INTERNAL_NAME, QueuedWorkHook.METHOD, QueuedWorkHook.METHOD_DESCRIPTOR);
        byte[] prefix = {
            (byte) INVOKESTATIC, (byte) (hook >> 8), (byte) hook, // 0: invokestatic hook.queuedWork
            (byte) IFEQ, 0, 5,                                    // 3: ifeq 8
            ICONST_1,                                             // 6: iconst_1
            (byte) IRETURN,                                       // 7: ireturn
        };                                                        // 8: the JDK's body ("original")
        patch.prefix(target, prefix, 1, ClassPatch.sameFrame(8));
        return new Rewrite(patch.toBytes(), 1);
    }
}
