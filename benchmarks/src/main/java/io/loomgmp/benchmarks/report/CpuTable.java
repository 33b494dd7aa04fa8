package io.loomgmp.benchmarks.report;

import io.loomgmp.benchmarks.ProcessCpuProfiler;

import java.util.List;
import java.util.Optional;

/**
 * CPU time beside wall time ({@link ProcessCpuProfiler}'s results): for each benchmark and each
 * scheduler, the wall time per operation, the process's CPU time per operation and the cores it
 * kept busy, then GMP's CPU time over FJP's with its error and a verdict. A throughput is shown as
 * its inverse, a time per operation, in the unit of the CPU time.
 */
final class CpuTable {
    static final String HOW_TO_READ = """
            CPU/op: the fork's CPU time (every thread of the JVM: the benchmark's and JMH's threads, \
            the carriers, the JIT compilers and the garbage collector) over each measurement \
            iteration, divided by the operations of the iteration; cores: that CPU time over the \
            iteration's wall time (2 means both cores of a 2-core machine, all the time). Both are \
            measured per iteration and averaged like the scores, ± the 99.9 % interval; the window \
            is the whole iteration, its set-up and tear-down included (and, in a fork's last \
            iteration, the tear-down of the benchmark's threads). time/op: the wall time per \
            operation (for a throughput, its inverse). A scheduler that matches the other's time/op \
            with fewer cores, or beats it with as many, shows it here. CPU/op GMP/FJP and its verdict \
            read as in the first table.""";

    private CpuTable() {
    }

    /** The table, or empty if no comparison has CPU time (results recorded without the profiler). */
    static Optional<String> render(List<Comparison> comparisons) {
        StringBuilder table = new StringBuilder("""
                | benchmark | unit | GMP time/op | GMP CPU/op | GMP cores | FJP time/op | FJP CPU/op | FJP cores \
                | CPU/op GMP/FJP | verdict |
                |---|---|--:|--:|--:|--:|--:|--:|--:|---|
                """);
        boolean any = false;
        for (Comparison primary : comparisons) {
            if (!primary.metric().isEmpty()) {
                continue;
            }
            Optional<Comparison> cpu = metric(comparisons, primary, ProcessCpuProfiler.CPU_PER_OP);
            Optional<Comparison> cores = metric(comparisons, primary, ProcessCpuProfiler.CORES);
            if (cpu.isEmpty() || cores.isEmpty()) {
                continue;
            }
            any = true;
            String unit = cpu.get().unit();
            Comparison c = cpu.get();
            table.append("| ").append(primary.label())
                    .append(" | ").append(unit)
                    .append(" | ").append(text(primary.gmp().map(s -> s.perOp(unit))))
                    .append(" | ").append(text(c.gmp()))
                    .append(" | ").append(text(cores.get().gmp()))
                    .append(" | ").append(text(primary.fjp().map(s -> s.perOp(unit))))
                    .append(" | ").append(text(c.fjp()))
                    .append(" | ").append(text(cores.get().fjp()))
                    .append(" | ").append(c.complete() ? MarkdownTable.ratioText(c.ratio(), c.ratioError()) : "—")
                    .append(" | ").append(c.complete() ? c.verdict() : "one scheduler only")
                    .append(" |\n");
        }
        return any ? Optional.of(table.toString()) : Optional.empty();
    }

    private static String text(Optional<Score> score) {
        return score.map(Score::textWithForks).orElse("—");
    }

    private static Optional<Comparison> metric(List<Comparison> comparisons, Comparison primary, String metric) {
        return comparisons.stream().filter(c -> c.metric().equals(metric) && c.sameRuns(primary)).findFirst();
    }
}
