package io.loomgmp.dispatcher.loom;

import io.loomgmp.dispatcher.GmpScheduler;

import java.util.function.Function;

/**
 * What {@link LoomSupport} needs of the dispatcher's package-private internals, in the manner of
 * the JDK's shared secrets: implemented by a package-private class of
 * {@code io.loomgmp.dispatcher}, which {@code GmpScheduler}'s static initialiser installs with
 * {@link SharedSecrets#setDispatcherAccess}. For the Loom bridge only; {@code module-info}
 * exports this package to {@code io.loomgmp.bridge} alone. See {@link LoomSupport} for what each
 * method does.
 */
public interface DispatcherAccess {
    void carrierLocator(GmpScheduler scheduler, CarrierLocator locator);

    void taskThread(GmpScheduler scheduler, Function<Runnable, Thread> taskThread);

    boolean isCurrentTask(GmpScheduler scheduler, Runnable task);

    boolean preemptPending();

    boolean preemptAsked(Thread carrier);

    boolean takePreemptRequest(Thread carrier);

    void yieldAtPollFailed(Thread carrier, Throwable failure);

    boolean hasQueuedWork(Thread carrier);

    int carriers(GmpScheduler scheduler);

    int runningTasks(GmpScheduler scheduler);

    long queuedTasks(GmpScheduler scheduler);
}
