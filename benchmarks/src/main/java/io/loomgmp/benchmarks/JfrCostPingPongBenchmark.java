package io.loomgmp.benchmarks;

import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Issue 5's cost question for the hand-off path: {@link PingPongBenchmark}'s two ping-pongs
 * with no recording, the always-on settings and the tracing settings ({@link JfrRecordings}).
 * Compare the GMP rows across {@code recording}; the FJP rows show what JFR costs the JDK's
 * scheduler, which records none of loom-gmp's events.
 */
public class JfrCostPingPongBenchmark extends PingPongBenchmark {
    @Param({"none", "always", "tracing"})
    public String recording;

    private Recording jfr;

    @Setup(Level.Trial)
    public void startRecording() {
        jfr = JfrRecordings.start(recording);
    }

    @TearDown(Level.Trial)
    public void stopRecording() {
        JfrRecordings.stop(jfr);
    }
}
