package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A carrier parked as an idle M (no P, no work) until a wake-up: the event spans the park.
 * Committed by the carrier when it wakes; tracing settings only.
 */
@Name("loomgmp.CarrierPark")
@Label("Carrier Park")
@Description("A carrier with no work parked on the idle list until woken")
@Category({"loom-gmp", "Carriers"})
@StackTrace(false)
@Enabled(false) // one per idle period: frequent under bursty load, so tracing settings only
public final class CarrierParkEvent extends jdk.jfr.Event {
    @Label("Carrier Thread Id")
    @Description("Thread id of the carrier that parked")
    public long carrierThread;
}
