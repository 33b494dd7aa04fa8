package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.JdkInternals;
import io.loomgmp.dispatcher.loom.LoomSupport;

import java.lang.invoke.MethodHandles;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.function.BooleanSupplier;

/**
 * Gives GMP's answer to the JDK's spin heuristic. Before parking, {@code SynchronousQueue},
 * {@code LinkedTransferQueue} and {@code Exchanger} spin for a while unless
 * {@code ForkJoinWorkerThread.hasKnownQueuedWork()} says the carrier has queued work; that method
 * knows only ForkJoinPool. On GMP a virtual thread that hands a token to its partner puts the
 * partner in its own P's runnext and then spins in vain: the partner cannot run until it parks.
 * {@link ForkJoinWorkerThreadRewriter} makes the JDK method return true first when
 * {@link #CLASS_NAME}{@code .queuedWork()} does, which asks {@link LoomSupport#hasQueuedWork}.
 *
 * <p>The hook is made when the agent is built ({@link JdkHookClasses}) and defined <em>in</em>
 * {@code java.util.concurrent} (like
 * {@link SchedulerHook} in {@code java.lang}), as the JDK method can only see classes of its own
 * module:
 * <pre>
 * final class java.util.concurrent.LoomGmpQueuedWorkHook {
 *     static volatile BooleanSupplier probe;               // set once by the agent
 *     static boolean queuedWork() {                        // called by hasKnownQueuedWork()
 *         BooleanSupplier p = probe;
 *         return p != null &amp;&amp; p.getAsBoolean();
 *     }
 * }
 * </pre>
 */
final class QueuedWorkHook {
    static final String CLASS_NAME = "java.util.concurrent.LoomGmpQueuedWorkHook";
    static final String INTERNAL_NAME = "java/util/concurrent/LoomGmpQueuedWorkHook";
    static final String METHOD = "queuedWork";
    static final String METHOD_DESCRIPTOR = "()Z";
    static final String FIELD = "probe";

    private QueuedWorkHook() {
    }

    /**
     * Defines the hook and installs the probe: the current carrier, if a GMP one, has queued
     * work. The caller's module must have {@code java.util.concurrent} opened to it.
     */
    static void define() throws IllegalAccessException, NoSuchFieldException {
        MethodHandles.Lookup inJuc = MethodHandles.privateLookupIn(ForkJoinWorkerThread.class, MethodHandles.lookup());
        Class<?> hook = inJuc.defineClass(JdkHookClasses.read(CLASS_NAME));
        BooleanSupplier probe = new BooleanSupplier() { // not a lambda: its bootstrap would cost start-up milliseconds
            @Override
            public boolean getAsBoolean() {
                return LoomSupport.hasQueuedWork(JdkInternals.currentCarrierThread());
            }
        };
        MethodHandles.privateLookupIn(hook, MethodHandles.lookup())
                .findStaticVarHandle(hook, FIELD, BooleanSupplier.class)
                .setVolatile(probe);
    }
}
