package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.CarrierLocator;
import io.loomgmp.dispatcher.loom.DispatcherAccess;
import io.loomgmp.dispatcher.loom.LoomSupport;

import java.util.function.Function;

/**
 * The dispatcher's side of {@link LoomSupport}: the Loom bridge's hooks into package-private
 * internals. {@link GmpScheduler}'s static initialiser installs the one instance. See
 * {@link LoomSupport} for what each method does; it checks the arguments.
 */
final class DispatcherAccessImpl implements DispatcherAccess {
    @Override
    public void carrierLocator(GmpScheduler scheduler, CarrierLocator locator) {
        scheduler.scheduling.carrierLocator = locator;
    }

    @Override
    public void taskThread(GmpScheduler scheduler, Function<Runnable, Thread> taskThread) {
        scheduler.scheduling.taskThread = taskThread;
    }

    @Override
    public boolean isCurrentTask(GmpScheduler scheduler, Runnable task) {
        return scheduler.scheduling.isCurrentTask(task);
    }

    @Override
    public boolean preemptPending() {
        return Preemption.anyPending();
    }

    @Override
    public boolean preemptAsked(Thread carrier) {
        return Preemption.askedAtPoll(carrier);
    }

    @Override
    public boolean takePreemptRequest(Thread carrier) {
        return Preemption.takeAtPoll(carrier);
    }

    @Override
    public void yieldAtPollFailed(Thread carrier, Throwable failure) {
        try {
            Carrier m = CarrierTable.of(carrier);
            if (m != null) {
                m.yieldingAtPoll = false; // on m's own OS thread: its next yield is not a preemption
                m.scheduling.failures.report(SchedulerFailure.Site.POLL, failure,
                        "the virtual thread runs on; sysmon asks again after another time slice");
            }
        } catch (Throwable ignored) {
            // Failures.report never throws; CarrierTable.of neither: nothing to do
        }
    }

    @Override
    public boolean hasQueuedWork(Thread carrier) {
        Carrier m = CarrierTable.of(carrier);
        return m != null && m.p != null && !m.p.runQueue.isEmpty();
    }

    @Override
    public int carriers(GmpScheduler scheduler) {
        return scheduler.scheduling.parking.carriers();
    }

    @Override
    public int runningTasks(GmpScheduler scheduler) {
        return Snapshots.runningTasks(scheduler.scheduling);
    }

    @Override
    public long queuedTasks(GmpScheduler scheduler) {
        return Snapshots.queuedTasks(scheduler.scheduling);
    }
}
