package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * No information: a work-around for a JDK 25 behaviour that would otherwise lose the scheduler's
 * events. A carrier shares its JFR event writer with the virtual threads mounted on it; after a
 * virtual thread has committed a Java event (any event: the JDK's own, the application's, or
 * {@code loomgmp.Preempt} at a preemption poll), the <em>first</em> event the carrier itself then
 * commits is discarded by the JDK, with no error. Checked with a scheduler of a dozen lines and
 * nothing but the JDK: 100 yields, each after the virtual thread committed one event, and 100
 * runs committed by the carrier leave 1 run in the recording. This event is what the carrier
 * commits first after running a task, so that it, not a {@code loomgmp.Run}, is what is lost; when
 * nothing is lost it stays in the recording, where the viewer ignores it.
 *
 * <p>Committed only just before a carrier's own event, at most once per task run; on whenever
 * the scheduler's carrier-side events are (both settings files, and by default).
 */
@Name("loomgmp.CarrierResync")
@Label("Carrier Resync")
@Description("Carries no data: the JDK drops the first event a custom carrier commits after a virtual thread"
        + " on it committed one; this event takes that loss so that the next one is kept")
@Category({"loom-gmp", "Carriers"})
@StackTrace(false)
public final class CarrierResyncEvent extends jdk.jfr.Event {
}
