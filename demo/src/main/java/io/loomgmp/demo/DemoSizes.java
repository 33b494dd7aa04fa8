package io.loomgmp.demo;

import java.time.Duration;
import java.util.List;

/**
 * How long the demo's loaded servers warm up and measure, and which sizes of the hand-off
 * {@link Workloads} it runs: full for a person, small ({@code --small}) for the smoke test.
 */
record DemoSizes(Duration serverWarmUp, Duration serverWindow, Duration mixWarmUp, Duration mixWindow,
                 List<String> workloadsArgs) {
    static final DemoSizes FULL = new DemoSizes(Duration.ofMillis(1_000), Duration.ofMillis(3_000),
            Duration.ofMillis(1_000), Duration.ofMillis(4_000), List.of());
    static final DemoSizes SMALL = new DemoSizes(Duration.ofMillis(500), Duration.ofMillis(1_500),
            Duration.ofMillis(500), Duration.ofMillis(2_000), List.of("--small"));
}
