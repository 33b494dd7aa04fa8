package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.GmpScheduler;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.List;

/**
 * What the agent's start-up puts in place before it knows that {@code java.lang.VirtualThread} can
 * be rewritten, and how it is taken back when it cannot ({@link GmpAgent}), so that the JVM then
 * runs as without the agent, on the JDK's own scheduler. The pieces, in the order start-up puts
 * them in place: the scheduler (built, so its sysmon thread runs), the hook that hands it to
 * VirtualThread's constructor ({@link SchedulerHook}), and the VirtualThread rewriter, registered.
 * {@link #undo} takes them back newest first: the rewriter is removed, so that no later
 * retransformation of VirtualThread (a profiler, another agent) brings the rewrite in; the hook
 * is cleared; the scheduler is closed, which joins its sysmon thread and any carrier.
 *
 * <p><b>Why that is enough.</b> When start-up fails, VirtualThread is as it was: the rewriter
 * hands the JVM bytes only for a whole rewrite, which the agent accepts, and a retransformation
 * that throws changes nothing (the JVM redefines a class whole or not at all). So no virtual
 * thread was ever given the scheduler: closing it loses no task and waits for none. Everything
 * else the agent does (the scheduler in {@link Gmp}, the other transformers, the preemption polls,
 * schedtrace, the MXBean) comes after VirtualThread is rewritten, and is never taken back.
 *
 * <p><b>What stays.</b> The module edges the agent gave itself in {@code java.base}, as
 * {@code --add-opens java.base/java.lang} and {@code --add-exports} of {@code java.base}'s
 * {@code jdk.internal.access} and {@code jdk.internal.misc} would give them to the application's
 * unnamed module, which the agent's classes share: no API takes an edge back. The hook class,
 * empty: a class cannot be undefined. The listener that the dispatcher registers with JFR for the
 * first scheduler of a JVM, which then has no scheduler to report on. None of them schedules
 * anything.
 *
 * <p><b>Failure.</b> Every step is tried even when an earlier one throws. A step that throws is
 * an agent bug that leaves the JVM partly set up, so {@link #undo} then throws, and start-up ends
 * as an agent failure (exit 1), never as the warning that the JVM runs without loom-gmp.
 *
 * <p>Used only by the thread running {@code premain}.
 */
final class Rollback {
    private final Instrumentation instrumentation;
    private final GmpScheduler scheduler;
    private final List<ClassFileTransformer> transformers = new ArrayList<>(1);
    private boolean hookDefined;

    /** @param scheduler built by start-up, to which no virtual thread has been given yet */
    Rollback(Instrumentation instrumentation, GmpScheduler scheduler) {
        this.instrumentation = instrumentation;
        this.scheduler = scheduler;
    }

    /** Registers {@code transformer} as a retransforming one; {@link #undo} removes it. */
    void addTransformer(ClassFileTransformer transformer) {
        instrumentation.addTransformer(transformer, true);
        transformers.add(transformer);
    }

    /** {@link SchedulerHook#define} has installed the scheduler: {@link #undo} clears the hook. */
    void hookDefined() {
        hookDefined = true;
    }

    /**
     * Takes back, newest first, what was put in place: removes the transformers, clears the hook
     * and closes the scheduler.
     *
     * @throws IllegalStateException if a step threw (each step was tried), with the first failure
     *         as its cause and the others suppressed
     */
    void undo() {
        IllegalStateException failed = null;
        for (int i = transformers.size() - 1; i >= 0; i--) {
            try {
                instrumentation.removeTransformer(transformers.get(i));
            } catch (Throwable e) {
                failed = failed(failed, "remove the transformer " + transformers.get(i).getClass().getSimpleName(), e);
            }
        }
        if (hookDefined) {
            try {
                SchedulerHook.clear();
            } catch (Throwable e) {
                failed = failed(failed, "clear " + SchedulerHook.CLASS_NAME, e);
            }
        }
        try {
            scheduler.close(); // no virtual thread has it (see the class comment): returns at once
        } catch (Throwable e) {
            failed = failed(failed, "close the scheduler", e);
        }
        if (failed != null) {
            throw failed;
        }
    }

    private static IllegalStateException failed(IllegalStateException earlier, String step, Throwable e) {
        if (earlier != null) {
            earlier.addSuppressed(e);
            return earlier;
        }
        return new IllegalStateException("loom-gmp: could not take back its start-up (" + step + "): " + e, e);
    }
}
