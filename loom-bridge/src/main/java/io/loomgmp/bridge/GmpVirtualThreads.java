package io.loomgmp.bridge;

import io.loomgmp.bridge.runtime.AgentRelease;
import io.loomgmp.bridge.runtime.ContinuationExecutor;
import io.loomgmp.bridge.runtime.JdkInternals;
import io.loomgmp.dispatcher.GmpScheduler;

import java.lang.reflect.Constructor;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Virtual threads on a {@link GmpScheduler}, per builder: no agent needed, but the JVM must be
 * started with {@value JdkInternals#JVM_FLAGS}. Virtual threads started by such a thread inherit
 * its scheduler (a JDK rule), so a whole tree of virtual threads stays on GMP.
 *
 * <pre>{@code
 * GmpScheduler gmp = GmpScheduler.builder().procs(4).build();
 * Thread t = GmpVirtualThreads.builder(gmp).name("worker-", 0).start(task);
 * try (ExecutorService perTask = GmpVirtualThreads.newVirtualThreadPerTaskExecutor(gmp)) { ... }
 * }</pre>
 */
public final class GmpVirtualThreads {
    private static final String BUILDER_CLASS = "java.lang.ThreadBuilders$VirtualThreadBuilder";

    private GmpVirtualThreads() {
    }

    /**
     * A virtual-thread builder whose threads run on {@code scheduler}.
     *
     * @throws IllegalStateException naming the missing {@code --add-opens} / {@code --add-exports}
     *         flags when the JVM does not give the access needed
     */
    public static Thread.Builder.OfVirtual builder(GmpScheduler scheduler) {
        return builderOn(ContinuationExecutor.on(scheduler));
    }

    /** An {@link ExecutorService} that starts a new virtual thread on {@code scheduler} per task. */
    public static ExecutorService newVirtualThreadPerTaskExecutor(GmpScheduler scheduler) {
        return Executors.newThreadPerTaskExecutor(builder(scheduler).factory());
    }

    static Thread.Builder.OfVirtual builderOn(ContinuationExecutor executor) {
        Constructor<?> constructor;
        try {
            constructor = Class.forName(BUILDER_CLASS).getDeclaredConstructor(java.util.concurrent.Executor.class);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JDK " + Runtime.version() + " has no " + BUILDER_CLASS
                    + "(Executor) constructor: loom-gmp supports " + AgentRelease.current().supportedJdksText(), e);
        }
        try {
            constructor.setAccessible(true);
        } catch (InaccessibleObjectException e) {
            throw new IllegalStateException(JdkInternals.missingAccessMessage(), e);
        }
        try {
            return (Thread.Builder.OfVirtual) constructor.newInstance(executor);
        } catch (InvocationTargetException e) {
            // UnsupportedOperationException when the VM has no continuations (-XX:-VMContinuations)
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}
