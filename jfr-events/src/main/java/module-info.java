/**
 * The loom-gmp JFR event types ({@code loomgmp.*}, package {@code io.loomgmp.jfr}) and the two
 * settings files that ship beside them ({@code loomgmp.jfc}, {@code loomgmp-trace.jfc}).
 *
 * <p>{@code jdk.jfr} is required transitively: the events extend {@code jdk.jfr.Event} and
 * {@code Settings.configuration} returns a {@code jdk.jfr.Configuration}. The settings files are
 * read only by {@code Settings}, from its own module, so their package need not be opened.
 */
module io.loomgmp.jfr {
    requires transitive jdk.jfr;

    exports io.loomgmp.jfr;
}
