/**
 * The trace viewer: reads a JFR recording's {@code loomgmp.*} events and writes
 * {@code trace.json} and {@code trace.html} ({@code io.loomgmp.trace.Main}); and
 * {@code loomgmp top}, the live console that attaches to a running JVM ({@code jdk.attach}),
 * reads the scheduler's MXBean over JMX ({@code java.management}) and streams its tracing events
 * ({@code jdk.management.jfr}). Exports nothing: it is a program, run as
 * {@code java -jar loom-gmp-trace.jar} (the shaded jar, on the class path) or
 * {@code java -p ... -m io.loomgmp.trace/io.loomgmp.trace.Main}.
 */
module io.loomgmp.trace {
    requires io.loomgmp.jfr;
    requires jdk.jfr;
    requires java.management;
    requires jdk.attach;
    requires jdk.management.jfr;
}
