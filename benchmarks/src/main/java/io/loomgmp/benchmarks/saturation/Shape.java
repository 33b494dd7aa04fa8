package io.loomgmp.benchmarks.saturation;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The load shapes of the saturation benchmark, by the name {@code --shape} takes. What each sends
 * at what sizes is {@link Plan}'s; {@link #title} is the heading of its table in the report.
 */
enum Shape {
    CPU("cpu", "`/cpu?us=1000` (1 ms of CPU per request), closed loop"),
    HANDOFF("handoff", "`/handoff?us=500` (0.5 ms of CPU done by one of 4 worker virtual threads, through a fair"
            + " `SynchronousQueue`), closed loop"),
    MIXED("mixed", "`/cpu?us=10000` (10 ms) beside `/cpu?us=100` (0.1 ms), both at once, closed loop"),
    HOGS("hogs+sleeper", "`/hog` (100 to 200 ms of CPU) beside `/sleep` (a child virtual thread sleeps 1 ms, joined),"
            + " both at once, closed loop"),
    OPEN("open", "`/cpu?us=1000` at a fixed rate, 50 % and 90 % of ForkJoinPool's closed-loop capacity on the"
            + " same server in the same run, open loop");

    final String label;
    final String title;

    Shape(String label, String title) {
        this.label = label;
        this.title = title;
    }

    /** @throws IllegalArgumentException naming the shapes there are */
    static Shape named(String label) {
        for (Shape shape : values()) {
            if (shape.label.equals(label)) {
                return shape;
            }
        }
        throw new IllegalArgumentException("no shape '" + label + "'; the shapes are: " + labels());
    }

    static String labels() {
        return Arrays.stream(values()).map(s -> s.label).collect(Collectors.joining(" "));
    }
}
