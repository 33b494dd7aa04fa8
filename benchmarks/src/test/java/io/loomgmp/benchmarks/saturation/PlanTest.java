package io.loomgmp.benchmarks.saturation;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PlanTest {
    private static List<Cell> all(SaturationProfile profile) {
        return Plan.cells(profile, Set.of(), Optional.empty());
    }

    @Test
    void theFullRunHasEveryShapeOnBothServersAndEveryLevelOnBothSchedulers() {
        List<Cell> cells = all(SaturationProfile.FULL);
        assertEquals(40, cells.size(), "the count SaturationProfile and the launcher's time estimate assume");
        Map<String, Integer> perShape = new HashMap<>();
        cells.forEach(c -> perShape.merge(c.shape().label + " " + c.server(), 1, Integer::sum));
        for (String server : Plan.SERVERS) {
            assertEquals(6, perShape.get("cpu " + server), "8, 64 and 1024 connections, twice");
            assertEquals(6, perShape.get("handoff " + server));
            assertEquals(2, perShape.get("mixed " + server));
            assertEquals(2, perShape.get("hogs+sleeper " + server));
            assertEquals(4, perShape.get("open " + server), "50 % and 90 %, twice");
        }
        Cell mixed = cells.stream().filter(c -> c.shape() == Shape.MIXED).findFirst().orElseThrow();
        assertEquals(List.of(new Cell.LoadClass("/cpu?us=10000", 26), new Cell.LoadClass("/cpu?us=100", 230)), mixed.classes());
        Cell hogs = cells.stream().filter(c -> c.shape() == Shape.HOGS).findFirst().orElseThrow();
        assertEquals(List.of(new Cell.LoadClass("/hog?ms=100..200", 100), new Cell.LoadClass("/sleep", 100)), hogs.classes());
        assertTrue(cells.stream().noneMatch(Cell::capacityProbe), "the cpu cells give the open loop its capacity");
    }

    @Test
    void gmpAndFjpAlternateCellByCellAndWhichGoesFirstAlternatesToo() {
        for (SaturationProfile profile : SaturationProfile.values()) {
            List<Cell> cells = all(profile);
            assertEquals(0, cells.size() % 2);
            List<String> firsts = new ArrayList<>();
            for (int i = 0; i < cells.size(); i += 2) {
                Cell a = cells.get(i);
                Cell b = cells.get(i + 1);
                assertEquals(a.on(b.scheduler()), b, "a pair is one cell on both schedulers: " + a + " / " + b);
                assertFalse(a.scheduler().equals(b.scheduler()));
                firsts.add(a.scheduler());
            }
            for (int i = 0; i < firsts.size(); i++) {
                assertEquals(i % 2 == 0 ? "gmp" : "fjp", firsts.get(i), profile + " pair " + i);
            }
        }
    }

    @Test
    void theOpenLoopComesAfterTheCpuCellsItTakesItsRateFrom() {
        List<Cell> cells = all(SaturationProfile.FULL);
        for (String server : Plan.SERVERS) {
            int lastCpu = -1;
            int firstOpen = Integer.MAX_VALUE;
            for (int i = 0; i < cells.size(); i++) {
                Cell c = cells.get(i);
                if (c.server().equals(server) && c.shape() == Shape.CPU) {
                    lastCpu = i;
                }
                if (c.server().equals(server) && c.shape() == Shape.OPEN) {
                    firstOpen = Math.min(firstOpen, i);
                }
            }
            assertTrue(lastCpu >= 0 && lastCpu < firstOpen, server);
        }
        assertTrue(cells.stream().filter(c -> c.shape() == Shape.OPEN).allMatch(Cell::openLoop));
        assertTrue(cells.stream().filter(c -> c.shape() != Shape.OPEN).noneMatch(Cell::openLoop));
    }

    @Test
    void quickAndSmokeAreSmaller() {
        assertEquals(18, all(SaturationProfile.QUICK).size());
        List<Cell> smoke = all(SaturationProfile.SMOKE);
        assertEquals(10, smoke.size());
        assertEquals(EnumSet.allOf(Shape.class), EnumSet.copyOf(smoke.stream().map(Cell::shape).toList()), "every shape");
        assertEquals(Set.copyOf(Plan.SERVERS), Set.copyOf(smoke.stream().map(Cell::server).toList()), "both servers start");
    }

    @Test
    void filtersChooseShapesAndRunEveryShapeOnTheChosenServer() {
        List<Cell> jetty = Plan.cells(SaturationProfile.QUICK, Set.of(), Optional.of("jetty"));
        assertTrue(jetty.stream().allMatch(c -> c.server().equals("jetty")));
        assertEquals(EnumSet.allOf(Shape.class), EnumSet.copyOf(jetty.stream().map(Cell::shape).toList()),
                "also the shapes quick runs on vthread only by default");
        List<Cell> cpu = Plan.cells(SaturationProfile.FULL, Set.of(Shape.CPU), Optional.of("vthread"));
        assertEquals(6, cpu.size());
        assertTrue(cpu.stream().allMatch(c -> c.shape() == Shape.CPU && c.server().equals("vthread")));
    }

    @Test
    void anOpenLoopWithoutCpuCellsMeasuresItsCapacityFirstOnForkJoinPoolOnly() {
        List<Cell> open = Plan.cells(SaturationProfile.FULL, Set.of(Shape.OPEN), Optional.of("vthread"));
        assertEquals(5, open.size());
        Cell probe = open.get(0);
        assertTrue(probe.capacityProbe());
        assertEquals(Shape.CPU, probe.shape());
        assertEquals("fjp", probe.scheduler());
        assertEquals(List.of(new Cell.LoadClass(Plan.CPU_TARGET, 64)), probe.classes());
        assertTrue(open.subList(1, 5).stream().allMatch(c -> c.shape() == Shape.OPEN && !c.capacityProbe()));
    }

    @Test
    void aCellsLevelNamesItsLoad() {
        List<Cell> cells = all(SaturationProfile.FULL);
        assertEquals("cpu vthread 8 conns gmp", cells.get(0).name());
        assertEquals("26 + 230 conns", cells.stream().filter(c -> c.shape() == Shape.MIXED).findFirst().orElseThrow().level());
        assertEquals("50 % of capacity, 64 conns",
                cells.stream().filter(c -> c.shape() == Shape.OPEN).findFirst().orElseThrow().level());
    }
}
