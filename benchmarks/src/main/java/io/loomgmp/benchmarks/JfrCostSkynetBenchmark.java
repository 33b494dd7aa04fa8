package io.loomgmp.benchmarks;

import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Issue 5's cost question for spawning and stealing: {@link SkynetBenchmark} with no recording,
 * the always-on settings and the tracing settings ({@link JfrRecordings}). Compare the GMP rows
 * across {@code recording}.
 */
public class JfrCostSkynetBenchmark extends SkynetBenchmark {
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
