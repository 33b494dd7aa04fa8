package io.loomgmp.benchmarks.saturation;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SaturationOptionsTest {
    private static final List<String> REQUIRED = List.of("--agent", "a.jar", "--out", "target/s/results.md");

    private static SaturationOptions parse(String... args) throws SaturationOptions.UsageException {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(REQUIRED);
        return SaturationOptions.parse(all).orElseThrow();
    }

    @Test
    void defaultsToTheFullRunOfEveryShapeOnEachShapesServers() throws Exception {
        SaturationOptions options = parse();
        assertEquals(SaturationProfile.FULL, options.profile());
        assertEquals(Set.of(), options.shapes());
        assertEquals(Optional.empty(), options.server());
        assertEquals(10, options.windowSeconds());
        assertEquals("wrk", options.wrk());
        assertEquals(Path.of("target/s/results.csv"), options.csv());
        assertEquals(Path.of("target/s/logs").toAbsolutePath(), options.logs());
        assertEquals(Optional.empty(), options.doc());
        assertTrue(options.command().startsWith("SaturationRunner --agent a.jar"), options.command());
    }

    @Test
    void readsTheProfileTheFiltersAndTheFiles() throws Exception {
        SaturationOptions options = parse("--quick", "--shape", "cpu,open", "--shape", "hogs+sleeper", "--server", "jetty",
                "--duration", "7", "--wrk", "/opt/wrk", "--logs", "l", "--steps-per-us", "612.5", "--command", "./loomgmp x");
        assertEquals(SaturationProfile.QUICK, options.profile());
        assertEquals(EnumSet.of(Shape.CPU, Shape.OPEN, Shape.HOGS), options.shapes());
        assertEquals(Optional.of("jetty"), options.server());
        assertEquals(OptionalInt.of(7), options.duration());
        assertEquals(7, options.windowSeconds());
        assertEquals("/opt/wrk", options.wrk());
        assertEquals(Path.of("l"), options.logs());
        assertEquals(612.5, options.stepsPerMicro().orElseThrow());
        assertEquals("./loomgmp x", options.command());
        assertEquals(SaturationProfile.SMOKE, parse("--smoke").profile());
        assertEquals(1, parse("--smoke").windowSeconds());
        assertEquals(Optional.of(Path.of("docs/performance.md")), parse("--doc", "docs/performance.md").doc());
    }

    @Test
    void helpIsNotAnError() throws Exception {
        assertTrue(SaturationOptions.parse(List.of("--help")).isEmpty());
        assertTrue(SaturationOptions.parse(List.of("-h", "--bogus")).isEmpty());
    }

    @Test
    void refusesUnknownOptionsAndBadValuesSayingWhy() {
        List<List<String>> bad = List.of(
                List.of("--fast"),
                List.of("--quick", "--smoke"),
                List.of("--shape", "tiny"),
                List.of("--shape", ",cpu"),
                List.of("--shape"),
                List.of("--server", "tomcat"),
                List.of("--server", "vthread", "--server", "jetty"),
                List.of("--duration", "0"),
                List.of("--duration", "601"),
                List.of("--duration", "1.5"),
                List.of("--duration", "ten"),
                List.of("--duration", "--quick"),
                List.of("--steps-per-us", "0"),
                List.of("--steps-per-us", "NaN"),
                List.of("--steps-per-us", "Infinity"),
                List.of("--doc", "d.md", "--quick"),
                List.of("--doc", "d.md", "--shape", "cpu"),
                List.of("--doc", "d.md", "--server", "jetty"),
                List.of("--doc", "d.md", "--duration", "3"));
        for (List<String> args : bad) {
            SaturationOptions.UsageException e = assertThrows(SaturationOptions.UsageException.class, () -> parse(args.toArray(String[]::new)),
                    args.toString());
            assertTrue(!e.getMessage().isBlank(), args + ": a message");
        }
        assertThrows(SaturationOptions.UsageException.class, () -> SaturationOptions.parse(List.of("--out", "r.md")), "no agent");
        assertThrows(SaturationOptions.UsageException.class, () -> SaturationOptions.parse(List.of("--agent", "a.jar")), "no out");
        assertThrows(SaturationOptions.UsageException.class,
                () -> SaturationOptions.parse(List.of("--agent", "a.jar", "--out", "results.txt")), "not .md");
        assertEquals("no shape 'tiny'; the shapes are: cpu handoff mixed hogs+sleeper open",
                assertThrows(SaturationOptions.UsageException.class, () -> parse("--shape", "tiny")).getMessage());
        assertEquals("--duration takes whole seconds from 1 to 600, not '0'",
                assertThrows(SaturationOptions.UsageException.class, () -> parse("--duration", "0")).getMessage());
    }

    /** The launcher checks the same names before it builds: they must be the runner's. */
    @Test
    void theLauncherKnowsTheSameShapesAndServers() throws IOException {
        // The launcher checks bench --saturation's options before it builds this module, so it
        // has its own copy of the names (it depends on no module): its source must say the same.
        String launcher = Files.readString(Path.of("..", "launcher/src/main/java/io/loomgmp/launcher/SaturationCommand.java"));
        assertEquals(Arrays.stream(Shape.values()).map(s -> s.label).toList(), javaList(launcher, "SHAPES"));
        assertEquals(Plan.SERVERS, javaList(launcher, "SERVERS"));
    }

    /** The strings of {@code static final List<String> NAME = List.of("a", "b");} in {@code source}. */
    private static List<String> javaList(String source, String name) {
        Matcher m = Pattern.compile("List<String> " + name + " = List\\.of\\(([^)]*)\\);").matcher(source);
        if (!m.find()) {
            throw new AssertionError("the launcher has no List<String> " + name + " = List.of(...);");
        }
        return Arrays.stream(m.group(1).split(",")).map(s -> s.strip().replace("\"", "")).toList();
    }
}
