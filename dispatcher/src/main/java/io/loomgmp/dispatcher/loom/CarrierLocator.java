package io.loomgmp.dispatcher.loom;

/**
 * Tells the scheduler which thread carries the calling code. The default answers
 * {@link Thread#currentThread()}, which recognises code running directly on a carrier. Code
 * running in a virtual thread mounted on a carrier sees the virtual thread there; the Loom bridge
 * plugs in a locator that sees through it to the carrier, so that an unpark or start issued by a
 * virtual thread reaches its carrier's P.
 *
 * <p>Called on every submission; must be cheap, must not block and must not submit work.
 */
@FunctionalInterface
public interface CarrierLocator {
    /**
     * The default: the current thread itself. (A class, not {@code Thread::currentThread}: the
     * agent builds a scheduler in every JVM's start-up, where each lambda's bootstrap costs
     * milliseconds; the same goes for the scheduler's other defaults.)
     */
    CarrierLocator CURRENT_THREAD = new CarrierLocator() {
        @Override
        public Thread currentCarrier() {
            return Thread.currentThread();
        }
    };

    /** The platform thread the calling code runs on (the current thread if it is not virtual). */
    Thread currentCarrier();
}
