/**
 * Micrometer meters for a {@code GmpScheduler}.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"}) // micrometer-core has an Automatic-Module-Name only
module io.loomgmp.metrics {
    requires transitive io.loomgmp.dispatcher;
    requires transitive micrometer.core;

    exports io.loomgmp.metrics;
}
