package io.loomgmp.bridge.runtime;

import io.loomgmp.dispatcher.loom.CarrierLocator;
import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.Placement;
import io.loomgmp.dispatcher.loom.LoomSupport;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The {@link Executor} that Loom hands virtual-thread continuations to. It decides where each one
 * is queued, from who is calling (each case checked on JDK 25):
 * <ul>
 *   <li>a <b>virtual thread</b> (it unparks or starts another one; the JDK pins it for the call):
 *       {@link Placement#RUNNEXT} of its carrier's P — the LIFO hand-off. The carrier locator
 *       sees through the virtual thread to the carrier.</li>
 *   <li>a <b>carrier re-submitting the task it is running</b>: the virtual thread just yielded
 *       ({@code Thread.yield}, a yield at a preemption poll, or a park that raced with an
 *       unpark) — {@link Placement#YIELD}: behind the P's queued work, or on the global queue
 *       when only that has work.</li>
 *   <li>a <b>carrier submitting another task</b> (a virtual thread that ended wakes its joiner):
 *       {@link Placement#RUNNEXT}.</li>
 *   <li>any <b>other thread</b> (the JDK's timer and unblocker threads, I/O pollers, platform
 *       threads): the dispatcher puts it on the global queue and wakes an idle P.</li>
 * </ul>
 * Runs pinned on a virtual thread in the first case, so it must never block: the dispatcher's
 * submit path takes at most its short scheduler lock.
 */
public final class ContinuationExecutor implements Executor {
    private final GmpScheduler scheduler;

    private ContinuationExecutor(GmpScheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Wraps {@code scheduler} for Loom and installs the carrier locator that sees through virtual
     * threads.
     *
     * @throws IllegalStateException naming the JVM flags when {@code jdk.internal.access} is not
     *         accessible
     */
    public static ContinuationExecutor on(GmpScheduler scheduler) {
        Objects.requireNonNull(scheduler, "scheduler");
        try {
            JdkInternals.check();
        } catch (ExceptionInInitializerError e) {
            if (e.getCause() instanceof IllegalStateException cause) {
                throw new IllegalStateException(cause.getMessage(), cause.getCause());
            }
            throw e;
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException(JdkInternals.missingAccessMessage(), e);
        }
        // Classes, not method references: this runs in every JVM's start-up under the agent,
        // where each lambda's bootstrap costs milliseconds.
        LoomSupport.carrierLocator(scheduler, new CarrierLocator() {
            @Override
            public Thread currentCarrier() {
                return JdkInternals.currentCarrierThread();
            }
        });
        LoomSupport.taskThread(scheduler, new Function<>() { // JFR events name the virtual thread
            @Override
            public Thread apply(Runnable task) {
                return TaskThreads.of(task);
            }
        });
        return new ContinuationExecutor(scheduler);
    }

    public GmpScheduler scheduler() {
        return scheduler;
    }

    @Override
    public void execute(Runnable continuation) {
        Placement placement;
        if (Thread.currentThread().isVirtual() || !LoomSupport.isCurrentTask(scheduler, continuation)) {
            placement = Placement.RUNNEXT;
        } else {
            placement = Placement.YIELD;
        }
        scheduler.submit(continuation, placement);
    }

    @Override
    public String toString() {
        return scheduler.toString();
    }
}
