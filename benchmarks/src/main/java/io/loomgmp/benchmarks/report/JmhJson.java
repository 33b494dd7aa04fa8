package io.loomgmp.benchmarks.report;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads JMH's JSON result file ({@code -rf json}) into {@link Comparison}s: one per benchmark,
 * parameter set (other than {@code scheduler}) and metric, pairing the {@code gmp} run with the
 * {@code fjp} one. Comparisons keep the order in which the file first names them; a benchmark's
 * secondary results follow its primary one, by name. Each score keeps its forks' scores too.
 * {@code procs=0} (the default number of Ps: the cores) is left out of the parameters, so that a
 * default run of a benchmark with a {@code procs} parameter keeps the name it had before it had one.
 */
final class JmhJson {
    private JmhJson() {
    }

    static List<Comparison> read(Path json) throws IOException {
        return parse(Files.readString(json));
    }

    static List<Comparison> parse(String json) {
        Map<List<String>, Score[]> scores = new LinkedHashMap<>(); // [benchmark, mode, params, metric] -> {gmp, fjp}
        JsonArray runs = JsonParser.parseString(json).getAsJsonArray();
        for (JsonElement element : runs) {
            JsonObject run = element.getAsJsonObject();
            String benchmark = run.get("benchmark").getAsString();
            String mode = run.get("mode").getAsString();
            Map<String, String> params = new TreeMap<>();
            if (run.has("params")) {
                run.getAsJsonObject("params").entrySet().forEach(p -> params.put(p.getKey(), p.getValue().getAsString()));
            }
            String scheduler = params.remove("scheduler");
            // The default needs no name: the hand-off benchmarks' usual rows keep their labels,
            // and only the runs without JVMTI transitions say so (HandOffBenchmark).
            params.remove("jvmtiTransitions", "on");
            if ("0".equals(params.get("procs"))) {
                params.remove("procs"); // the default, the cores: a default run keeps its name (OnSchedulerAtProcs)
            }
            int slot = switch (scheduler == null ? "" : scheduler) {
                case "gmp" -> 0;
                case "fjp" -> 1;
                default -> throw new IllegalArgumentException(benchmark + ": scheduler parameter \"" + scheduler
                        + "\", expected gmp or fjp");
            };
            String paramText = params.entrySet().stream().map(p -> p.getKey() + "=" + p.getValue())
                    .collect(Collectors.joining(", "));
            put(scores, List.of(benchmark, mode, paramText, ""), slot, score(run.getAsJsonObject("primaryMetric")));
            if (run.has("secondaryMetrics")) {
                new TreeMap<>(run.getAsJsonObject("secondaryMetrics").asMap()).forEach((name, metric) ->
                        put(scores, List.of(benchmark, mode, paramText, name.replace("·", "")), slot,
                                score(metric.getAsJsonObject())));
            }
        }
        List<Comparison> comparisons = new ArrayList<>();
        scores.forEach((key, pair) -> comparisons.add(new Comparison(key.get(0), key.get(1), key.get(2), key.get(3),
                Optional.ofNullable(pair[0]), Optional.ofNullable(pair[1]))));
        return comparisons;
    }

    private static void put(Map<List<String>, Score[]> scores, List<String> key, int slot, Score score) {
        Score[] pair = scores.computeIfAbsent(key, k -> new Score[2]);
        if (pair[slot] != null) {
            throw new IllegalArgumentException("two results for " + key + " with scheduler " + (slot == 0 ? "gmp" : "fjp"));
        }
        pair[slot] = score;
    }

    /**
     * The score over all forks, and each fork's mean ({@code rawData}: one array of iteration
     * values per fork). JMH writes a missing error as the string "NaN", which Gson reads as a
     * number too.
     */
    private static Score score(JsonObject metric) {
        String unit = metric.get("scoreUnit").getAsString();
        List<Score> forks = new ArrayList<>();
        if (metric.has("rawData")) {
            for (JsonElement fork : metric.getAsJsonArray("rawData")) {
                JsonArray iterations = fork.getAsJsonArray();
                if (!iterations.isEmpty()) {
                    double sum = 0;
                    for (JsonElement iteration : iterations) {
                        sum += iteration.getAsDouble();
                    }
                    forks.add(new Score(sum / iterations.size(), Double.NaN, unit));
                }
            }
        }
        return new Score(metric.get("score").getAsDouble(), metric.get("scoreError").getAsDouble(), unit,
                List.copyOf(forks));
    }
}
