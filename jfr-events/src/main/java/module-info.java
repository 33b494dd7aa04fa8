/**
 * The loomgmp.* JFR event types and their settings files, and (for now) the trace viewer.
 */
module io.loomgmp.jfr {
    requires transitive jdk.jfr;

    exports io.loomgmp.jfr;
    exports io.loomgmp.jfr.trace;
}
