/**
 * The G-M-P scheduler as a plain {@link java.util.concurrent.Executor}. Its package
 * {@code io.loomgmp.dispatcher.loom} holds the Loom bridge's hooks and is exported to the bridge
 * alone (which is not there when this module compiles, hence the suppressed warning).
 */
@SuppressWarnings("module")
module io.loomgmp.dispatcher {
    requires io.loomgmp.jfr;
    requires jdk.jfr;
    // Not transitive: only GmpSchedulerMXBeans names its types, and a user who registers the MXBean
    // uses JMX itself; every other user of the scheduler does not need the module.
    requires java.management;

    exports io.loomgmp.dispatcher;
    exports io.loomgmp.dispatcher.loom to io.loomgmp.bridge;
}
