package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AgentSettingsTest {
    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void defaultsFollowTheJdk() {
        assertEquals(new AgentSettings(8, 256, Duration.ofMillis(10), 0), AgentSettings.parse(null, props(), 8));
        assertEquals(new AgentSettings(300, 300, Duration.ofMillis(10), 0),
                AgentSettings.parse("", props(AgentSettings.PARALLELISM, "300"), 8));
    }

    @Test
    void maxPoolSizeCapsParallelism() {
        assertEquals(new AgentSettings(2, 2, Duration.ofMillis(10), 0),
                AgentSettings.parse(null, props(AgentSettings.MAX_POOL_SIZE, "2"), 8));
    }

    @Test
    void durationsTakeUnits() {
        assertEquals(Duration.ofNanos(700), AgentSettings.parse("timeslice=700ns", props(), 1).timeSlice());
        assertEquals(Duration.ofNanos(5_000), AgentSettings.parse("timeslice=5us", props(), 1).timeSlice());
        assertEquals(Duration.ofSeconds(2), AgentSettings.parse("timeslice=2s", props(), 1).timeSlice());
        assertEquals(1000, AgentSettings.parse("schedtrace=1000", props(), 1).schedtraceMillis());
    }

    @Test
    void badValuesAreRefusedWithTheSettingNamed() {
        assertBad("loom-gmp: bad value \"0ms\" for agent argument timeslice: expected a positive duration with a unit:"
                + " ns, us, ms or s (e.g. 10ms)", "timeslice=0ms", props());
        assertBad("loom-gmp: bad value \"999999999999999999us\" for agent argument timeslice: expected a positive"
                + " duration with a unit: ns, us, ms or s (e.g. 10ms)", "timeslice=999999999999999999us", props());
        assertBad("loom-gmp: bad value \"40000\" for system property jdk.virtualThreadScheduler.parallelism:"
                + " expected a whole number from 1 to 32767", null, props(AgentSettings.PARALLELISM, "40000"));
        // The JDK property is checked even when an agent argument overrides it: the JDK reads it too.
        assertBad("loom-gmp: bad value \" 4\" for system property jdk.virtualThreadScheduler.parallelism:"
                + " expected a whole number from 1 to 32767", "parallelism=4", props(AgentSettings.PARALLELISM, " 4"));
        assertBad("loom-gmp: unknown agent argument \"verbose\"; accepted: parallelism=N, maxPoolSize=N,"
                + " timeslice=DURATION, schedtrace=MS", "verbose", props());
    }

    private static void assertBad(String message, String arguments, Properties properties) {
        AgentSettings.BadSetting e = assertThrows(AgentSettings.BadSetting.class,
                () -> AgentSettings.parse(arguments, properties, 2));
        assertEquals(message, e.getMessage());
    }
}
