package io.loomgmp.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToIntFunction;

/**
 * The hand-off benchmarks as multiples of the floor: each one's time per hand-off, for each
 * scheduler, divided by the floors measured in that scheduler's JVMs in the same run
 * ({@code FloorBenchmark}):
 * <ul>
 *   <li>the continuation floor, {@code Floor.continuationYield}: one yield and one continue of a
 *       bare continuation on one platform thread, the least a virtual thread's switch costs;</li>
 *   <li>the park/unpark floor, {@code Floor.platformParkUnpark} halved: a round trip between two
 *       platform threads makes two OS wake-ups, so half of it is what the OS charges to wake one
 *       sleeping thread.</li>
 * </ul>
 * A hand-off is one virtual thread leaving its carrier and running again (one continuation yield
 * and continue), caused by a park and its unpark, or by a yield. {@link #HAND_OFFS} says how many
 * each benchmark's operation makes; a multiple is the time per hand-off over the floor, with the
 * two relative errors in quadrature.
 */
final class FloorTable {
    private static final String PACKAGE = "io.loomgmp.benchmarks.";
    static final String CONTINUATION_FLOOR = PACKAGE + "FloorBenchmark.continuationYield";
    static final String PARK_FLOOR = PACKAGE + "FloorBenchmark.platformParkUnpark";
    private static final String NS = "ns/op";

    /**
     * A hand-off benchmark: what its operation is, and how many hand-offs it makes.
     *
     * @param benchmark the JMH name
     * @param operation what one operation is, for the reader
     * @param handOffs the hand-offs one operation makes, given its parameters
     */
    record HandOff(String benchmark, String operation, ToIntFunction<Comparison> handOffs) {
    }

    /** The suite's hand-off benchmarks, in the report's order. */
    static final List<HandOff> HAND_OFFS = List.of(
            new HandOff(PACKAGE + "PingPongBenchmark.parkUnpark", "one round trip: 2 parks and 2 unparks,"
                    + " 2 hand-offs (each virtual thread leaves its carrier once and runs again once)", c -> 2),
            new HandOff(PACKAGE + "PingPongBenchmark.synchronousQueue", "one round trip through two"
                    + " `SynchronousQueue`s: 2 puts and 2 takes, 2 hand-offs (each take parks until its put unparks it)",
                    c -> 2),
            new HandOff(PACKAGE + "RingBenchmark.trip", "one trip around the ring: `threads` hops, each a put that"
                    + " unparks the next member and a take that parks the sender, 1 hand-off per hop (`perTrip`: plus"
                    + " a thread started, and ended, per hop)", c -> c.intParam("threads")),
            new HandOff(PACKAGE + "TimedParkBenchmark.round", "one round: `parkers` timed parks"
                    + " (`parkNanos(Long.MAX_VALUE)`, a timer armed each), each cancelled by its partner's unpark,"
                    + " 1 hand-off per parker; the partners' yields while they wait are not counted",
                    c -> c.intParam("parkers")),
            new HandOff(PACKAGE + "YieldStormBenchmark.yieldStorm", "one `Thread.yield()`: 1 hand-off with no"
                    + " unpark (the thread is queued again at once)", c -> 1));

    static final String HOW_TO_READ = """
            How far each hand-off is above what the JVM and the OS charge for one. A hand-off is a \
            virtual thread leaving its carrier and running again (one continuation yield and one \
            continue), caused by a park and its unpark, or by a yield; per hand-off: the benchmark's \
            time per operation over the hand-offs one operation makes (below). × continuation: over \
            `Floor.continuationYield`, one yield and one continue of a bare `jdk.internal.vm.Continuation` \
            on one platform thread, the least a switch costs. × park/unpark: over half of \
            `Floor.platformParkUnpark`, a park/unpark round trip between two platform threads (two OS \
            wake-ups), so what the OS charges to wake one sleeping thread. Each scheduler is divided by \
            the floors measured in its own JVMs (with the agent for GMP), in the same run; the floors \
            involve no virtual thread, so they should agree. ± : the two relative errors in quadrature. \
            The hand-off benchmarks are those whose operation makes a known number of hand-offs; the \
            others (thread starts, queues with room, servers) are not in this table.""";

    private FloorTable() {
    }

    /** The table and, after it, what one operation of each hand-off benchmark is; empty without both floors. */
    static Optional<String> render(List<Comparison> comparisons) {
        Optional<Comparison> continuation = primary(comparisons, CONTINUATION_FLOOR);
        Optional<Comparison> park = primary(comparisons, PARK_FLOOR);
        if (continuation.isEmpty() || park.isEmpty()) {
            return Optional.empty();
        }
        Floors gmp = Floors.of(continuation.get().gmp(), park.get().gmp());
        Floors fjp = Floors.of(continuation.get().fjp(), park.get().fjp());
        StringBuilder table = new StringBuilder("""
                | benchmark | hand-offs/op | GMP ns/hand-off | GMP × continuation | GMP × park/unpark \
                | FJP ns/hand-off | FJP × continuation | FJP × park/unpark |
                |---|--:|--:|--:|--:|--:|--:|--:|
                """);
        table.append(row(continuation.get(), "1 (a yield and a continue)", 1, gmp, fjp, true, false));
        table.append(row(park.get(), "2 (OS wake-ups)", 2, gmp, fjp, false, true));
        List<String> operations = new ArrayList<>();
        for (HandOff handOff : HAND_OFFS) {
            boolean present = false;
            for (Comparison c : comparisons) {
                // Not the runs without JVMTI transitions: the floors were measured with them.
                if (c.benchmark().equals(handOff.benchmark()) && c.metric().isEmpty()
                        && !c.params().contains("jvmtiTransitions=off")) {
                    int count = handOff.handOffs().applyAsInt(c);
                    table.append(row(c, String.format(Locale.ROOT, "%,d", count), count, gmp, fjp, false, false));
                    present = true;
                }
            }
            if (present) {
                operations.add("- `" + Report.shortName(handOff.benchmark()) + "`: " + handOff.operation());
            }
        }
        return Optional.of(table + "\nOne operation of each:\n\n"
                + "- `Floor.continuationYield`: one continue and one yield of a bare continuation, 1 hand-off's switch\n"
                + "- `Floor.platformParkUnpark`: one round trip between two platform threads: 2 parks and 2 unparks,"
                + " 2 OS wake-ups\n"
                + String.join("\n", operations) + "\n");
    }

    /** One scheduler's floors per hand-off, in ns/op: a continuation's yield and continue, one OS wake-up. */
    private record Floors(Optional<Score> continuation, Optional<Score> wakeUp) {
        /** From the floor benchmarks' scores: a platform park/unpark round trip makes two wake-ups. */
        static Floors of(Optional<Score> continuationYield, Optional<Score> platformParkUnpark) {
            return new Floors(continuationYield.map(s -> s.perOp(NS)),
                    platformParkUnpark.map(s -> scaled(s.perOp(NS), 0.5)));
        }
    }

    private static String row(Comparison c, String handOffsText, int handOffs, Floors gmp, Floors fjp,
                              boolean isContinuationFloor, boolean isParkFloor) {
        return "| " + c.label() + " | " + handOffsText
                + cells(c.gmp(), handOffs, gmp, isContinuationFloor, isParkFloor)
                + cells(c.fjp(), handOffs, fjp, isContinuationFloor, isParkFloor) + " |\n";
    }

    private static String cells(Optional<Score> score, int handOffs, Floors floors, boolean isContinuationFloor,
                                boolean isParkFloor) {
        if (score.isEmpty()) {
            return " | — | — | —";
        }
        Score perHandOff = scaled(score.get().perOp(NS), 1.0 / handOffs);
        return " | " + perHandOff.text()
                + " | " + (isContinuationFloor ? "1 (floor)" : multiple(perHandOff, floors.continuation()))
                + " | " + (isParkFloor ? "1 (floor)" : multiple(perHandOff, floors.wakeUp()));
    }

    /** "12.3 ± 1.4", "0.993 ± 0.051": {@code score} over {@code floor}; "—" without the floor. */
    private static String multiple(Score score, Optional<Score> floor) {
        if (floor.isEmpty()) {
            return "—";
        }
        Score f = floor.get();
        double ratio = score.value() / f.value();
        double error = score.hasError() && f.hasError()
                ? Math.abs(ratio) * Math.hypot(score.error() / score.value(), f.error() / f.value()) : Double.NaN;
        return new Score(ratio, error, "").text(); // three significant digits, as the scores
    }

    private static Score scaled(Score score, double factor) {
        return new Score(score.value() * factor, score.error() * factor, score.unit(),
                score.forks().stream().map(fork -> scaled(fork, factor)).toList());
    }

    private static Optional<Comparison> primary(List<Comparison> comparisons, String benchmark) {
        return comparisons.stream().filter(c -> c.benchmark().equals(benchmark) && c.metric().isEmpty()).findFirst();
    }
}
