package io.loomgmp.benchmarks.saturation;

import io.loomgmp.benchmarks.saturation.Cell.LoadClass;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The cells of a saturation run, in the order they run: shape by shape ({@link Shape}'s order, so
 * that the open loop comes after the closed-loop {@code cpu} cells it takes its rate from), server
 * by server, level by level, each level on both schedulers.
 *
 * <p><b>GMP and ForkJoinPool alternate cell by cell</b>, and which goes first alternates too (GMP
 * then FJP, then FJP then GMP, ...): a drift in the machine's load over the run (another user's
 * job starting) then falls on both schedulers alike rather than on whichever always ran second.
 *
 * <p>Connection counts are multiples of a 2-core machine's cores: 4 × (8), 32 × (64) and
 * 512 × (1,024). {@code --server} runs every chosen shape on that server, also the shapes a
 * profile runs on the vthread server only by default.
 */
final class Plan {
    static final List<String> SERVERS = List.of("vthread", "jetty");
    static final String CPU_TARGET = "/cpu?us=1000";
    static final String CPU_LONG = "/cpu?us=10000";
    static final String CPU_SHORT = "/cpu?us=100";
    static final String HANDOFF_TARGET = "/handoff?us=500";
    static final String HOG_TARGET = "/hog?ms=100..200";
    static final String SLEEP_TARGET = "/sleep";

    /** What one shape runs in one profile: on which servers, at which levels (each a set of classes sent at once). */
    private record Spec(Shape shape, List<String> servers, List<List<LoadClass>> levels, List<Double> fractions) {
    }

    private Plan() {
    }

    private static List<LoadClass> one(String target, int connections) {
        return List.of(new LoadClass(target, connections));
    }

    private static List<Spec> specs(SaturationProfile profile) {
        List<String> vthread = List.of("vthread");
        return switch (profile) {
            case FULL -> List.of(
                    new Spec(Shape.CPU, SERVERS, List.of(one(CPU_TARGET, 8), one(CPU_TARGET, 64), one(CPU_TARGET, 1024)), List.of()),
                    new Spec(Shape.HANDOFF, SERVERS, List.of(one(HANDOFF_TARGET, 8), one(HANDOFF_TARGET, 64),
                            one(HANDOFF_TARGET, 1024)), List.of()),
                    new Spec(Shape.MIXED, SERVERS, List.of(List.of(new LoadClass(CPU_LONG, 26), new LoadClass(CPU_SHORT, 230))), List.of()),
                    new Spec(Shape.HOGS, SERVERS, List.of(List.of(new LoadClass(HOG_TARGET, 100), new LoadClass(SLEEP_TARGET, 100))), List.of()),
                    new Spec(Shape.OPEN, SERVERS, List.of(one(CPU_TARGET, 64)), List.of(0.5, 0.9)));
            case QUICK -> List.of(
                    new Spec(Shape.CPU, SERVERS, List.of(one(CPU_TARGET, 64), one(CPU_TARGET, 1024)), List.of()),
                    new Spec(Shape.HANDOFF, vthread, List.of(one(HANDOFF_TARGET, 1024)), List.of()),
                    new Spec(Shape.MIXED, vthread, List.of(List.of(new LoadClass(CPU_LONG, 26), new LoadClass(CPU_SHORT, 230))), List.of()),
                    new Spec(Shape.HOGS, vthread, List.of(List.of(new LoadClass(HOG_TARGET, 100), new LoadClass(SLEEP_TARGET, 100))), List.of()),
                    new Spec(Shape.OPEN, vthread, List.of(one(CPU_TARGET, 64)), List.of(0.5, 0.9)));
            // One small cell per shape; the mixed shape on Jetty, so that both servers start.
            case SMOKE -> List.of(
                    new Spec(Shape.CPU, vthread, List.of(one(CPU_TARGET, 8)), List.of()),
                    new Spec(Shape.HANDOFF, vthread, List.of(one(HANDOFF_TARGET, 8)), List.of()),
                    new Spec(Shape.MIXED, List.of("jetty"), List.of(List.of(new LoadClass(CPU_LONG, 2), new LoadClass(CPU_SHORT, 8))), List.of()),
                    new Spec(Shape.HOGS, vthread, List.of(List.of(new LoadClass(HOG_TARGET, 2), new LoadClass(SLEEP_TARGET, 4))), List.of()),
                    new Spec(Shape.OPEN, vthread, List.of(one(CPU_TARGET, 8)), List.of(0.5)));
        };
    }

    /**
     * The cells of {@code profile}, only {@code shapes} (all when empty), on {@code server} only
     * when given; with a capacity probe before the open-loop cells of a server that has no
     * {@code cpu} cell in the plan.
     */
    static List<Cell> cells(SaturationProfile profile, Set<Shape> shapes, Optional<String> server) {
        List<Cell> cells = new ArrayList<>();
        int pair = 0;
        for (Spec spec : specs(profile)) {
            if (!shapes.isEmpty() && !shapes.contains(spec.shape)) {
                continue;
            }
            for (String on : server.map(List::of).orElse(spec.servers)) {
                if (spec.shape == Shape.OPEN && cells.stream().noneMatch(c -> c.shape() == Shape.CPU && c.server().equals(on))) {
                    cells.add(new Cell(Shape.CPU, on, "fjp", one(CPU_TARGET, spec.levels.get(0).get(0).connections()), 0, true));
                }
                List<Cell> levels = new ArrayList<>();
                if (spec.fractions.isEmpty()) {
                    spec.levels.forEach(classes -> levels.add(new Cell(spec.shape, on, "gmp", classes, 0, false)));
                } else {
                    spec.fractions.forEach(f -> levels.add(new Cell(spec.shape, on, "gmp", spec.levels.get(0), f, false)));
                }
                for (Cell cell : levels) {
                    boolean gmpFirst = pair++ % 2 == 0;
                    cells.add(gmpFirst ? cell : cell.on("fjp"));
                    cells.add(gmpFirst ? cell.on("fjp") : cell);
                }
            }
        }
        return cells;
    }
}
