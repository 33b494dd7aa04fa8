package io.loomgmp.benchmarks;

import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.TearDown;

import java.util.concurrent.TimeUnit;

/**
 * Issue 5's cost question for spawning and stealing: the skynet tree
 * ({@link SkynetBenchmark#tree(int)}, 100,000 leaves so that three recordings fit the quick run)
 * with no recording, the always-on settings and the tracing settings ({@link JfrRecordings}).
 * Compare the GMP rows across {@code recording}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class JfrCostSkynetBenchmark extends OnScheduler {
    @Param("100000")
    public int leaves;

    @Param({"none", "always", "tracing"})
    public String recording;

    private Recording jfr;

    @Setup(Level.Trial)
    public void startRecording() {
        jfr = JfrRecordings.start(recording);
    }

    @Benchmark
    public long tree() throws InterruptedException {
        return SkynetBenchmark.tree(leaves);
    }

    @TearDown(Level.Trial)
    public void stopRecording() {
        JfrRecordings.stop(jfr);
    }
}
