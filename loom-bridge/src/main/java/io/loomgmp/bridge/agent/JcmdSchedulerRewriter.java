package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.classfile.Bytecode;
import io.loomgmp.bridge.classfile.ClassPatch;
import io.loomgmp.bridge.classfile.UnsupportedShape;

import java.io.PrintStream;
import java.util.List;

/**
 * Makes {@code jcmd <pid> Thread.vthread_scheduler} print GMP: JDK 25's
 * {@code jdk.internal.vm.JcmdVThreadCommands.printScheduler()} appends
 * {@code JLA.virtualThreadDefaultScheduler()}, which is the JDK's unused ForkJoinPool under the
 * agent. Its one call of that method becomes a call of the hook, of the same size:
 * <pre>
 *   getstatic       JLA                                        // unchanged
 *   invokeinterface JavaLangAccess.virtualThreadDefaultScheduler()   // 5 bytes, becomes:
 *   pop; invokestatic LoomGmpSchedulerHook.scheduler()Executor; nop   // 5 bytes
 * </pre>
 * so that it prints the GMP executor, whose {@code toString} is {@code GmpScheduler.toString()}
 * (Ps, carriers by state, queued tasks, timers). {@code VirtualThread.defaultScheduler()} itself
 * is left alone: its only other caller is the JDK's scheduler MXBean, which needs the
 * ForkJoinPool should its own patch ({@link VirtualThreadSchedulerImplsRewriter}) not apply.
 * The class loads only when the command runs, in the Attach Listener thread; this rewrites it
 * then, so start-up pays nothing but the transformer's registration.
 */
final class JcmdSchedulerRewriter extends LazyJdkClassRewriter {
    static final String JCMD_VTHREAD_COMMANDS = "jdk/internal/vm/JcmdVThreadCommands";
    static final String METHOD = "printScheduler";
    private static final String METHOD_DESCRIPTOR = "()[B";
    private static final String JAVA_LANG_ACCESS = "jdk/internal/access/JavaLangAccess";
    private static final String DEFAULT_SCHEDULER = "virtualThreadDefaultScheduler";

    JcmdSchedulerRewriter(PrintStream warnings) {
        super(JCMD_VTHREAD_COMMANDS, METHOD, METHOD_DESCRIPTOR, warnings);
    }

    @Override
    String lost() {
        return "jcmd Thread.vthread_scheduler prints the JDK's unused ForkJoinPool, not GMP";
    }

    @Override
    Rewrite rewrite(ClassPatch patch, ClassPatch.Method target) {
        List<Integer> calls = patch.interfaceCalls(target, JAVA_LANG_ACCESS, DEFAULT_SCHEDULER);
        if (calls.size() != 1) {
            throw new UnsupportedShape(METHOD + " calls " + DEFAULT_SCHEDULER + " " + calls.size() + " times, expected once");
        }
        int hook = patch.methodref(SchedulerHook.INTERNAL_NAME, SchedulerHook.METHOD, SchedulerHook.METHOD_DESCRIPTOR);
        patch.replaceSameSize(calls.get(0), new byte[] {
            Bytecode.POP,                                                // pop: the JavaLangAccess
            (byte) Bytecode.INVOKESTATIC, (byte) (hook >> 8), (byte) hook, // the GMP executor
            Bytecode.NOP,
        });
        return new Rewrite(patch.toBytes(), 1);
    }
}
