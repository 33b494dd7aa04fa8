package io.loomgmp.benchmarks.saturation;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * One cell of the saturation run: one server JVM on one scheduler under one load, warmed up, then
 * measured.
 *
 * @param shape     the load shape
 * @param server    {@code vthread} or {@code jetty}
 * @param scheduler {@code gmp} (with the agent) or {@code fjp} (without)
 * @param classes   the request classes sent at once, each by its own load generator
 * @param fraction  for the open loop: the rate as a fraction of ForkJoinPool's capacity on this
 *                  server, else 0
 * @param capacityProbe whether this cell only measures that capacity, for an open-loop run whose
 *                  plan has no {@code cpu} cell on the server (ForkJoinPool only, not in the tables)
 */
record Cell(Shape shape, String server, String scheduler, List<LoadClass> classes, double fraction,
            boolean capacityProbe) {
    /** A request class: a target ({@code /cpu?us=1000}) and the connections that send it. */
    record LoadClass(String target, int connections) {
    }

    Cell {
        classes = List.copyOf(classes);
        if (classes.stream().map(LoadClass::target).distinct().count() != classes.size()) {
            // the server counts work by target: two classes of one target could not be told apart
            throw new IllegalArgumentException("two request classes of one cell send the same target: " + classes);
        }
    }

    boolean openLoop() {
        return fraction > 0;
    }

    /** "1024 conns", "26 + 230 conns", "50 % of capacity, 64 conns": the cell among its shape's cells on a server. */
    String level() {
        if (openLoop()) {
            return String.format(Locale.ROOT, "%d %% of capacity, %d conns", Math.round(fraction * 100),
                    classes.get(0).connections());
        }
        return classes.stream().map(c -> Integer.toString(c.connections())).collect(Collectors.joining(" + ")) + " conns";
    }

    /** "cpu vthread 1024 conns gmp": for progress lines and errors. */
    String name() {
        return (capacityProbe ? "capacity" : shape.label) + " " + server + " " + level() + " " + scheduler;
    }

    /** The same cell on the other scheduler. */
    Cell on(String otherScheduler) {
        return new Cell(shape, server, otherScheduler, classes, fraction, capacityProbe);
    }
}
