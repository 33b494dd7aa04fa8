package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AgentSettingsTest {
    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    /** The defaults but for the parallelism and the carrier bound. */
    private static AgentSettings defaults(int parallelism, int maxPoolSize) {
        return new AgentSettings(parallelism, maxPoolSize, Duration.ofMillis(10), Duration.ofSeconds(30), 0,
                8, true, List.of(), List.of(), true, true, false, false);
    }

    @Test
    void defaultsFollowTheJdk() {
        assertEquals(defaults(8, 256), AgentSettings.parse(null, props(), 8));
        assertEquals(defaults(300, 300), AgentSettings.parse("", props(AgentSettings.PARALLELISM, "300"), 8));
    }

    @Test
    void maxPoolSizeCapsParallelism() {
        assertEquals(defaults(2, 2), AgentSettings.parse(null, props(AgentSettings.MAX_POOL_SIZE, "2"), 8));
    }

    @Test
    void keepAliveIsADuration() {
        assertEquals(Duration.ofSeconds(5), AgentSettings.parse("keepalive=5s", props(), 1).keepAlive());
        assertEquals(Duration.ofMillis(250), AgentSettings.parse(null, props(AgentSettings.KEEPALIVE, "250ms"), 1).keepAlive());
        assertEquals(Duration.ofSeconds(5),
                AgentSettings.parse("keepalive=5s", props(AgentSettings.KEEPALIVE, "250ms"), 1).keepAlive(),
                "the agent argument wins");
    }

    @Test
    void preemptionPollsCanBeTurnedOffAndScoped() {
        assertFalse(AgentSettings.parse("preempt=false", props(), 1).preempt());
        assertFalse(AgentSettings.parse(null, props(AgentSettings.PREEMPT, "false"), 1).preempt());
        assertTrue(AgentSettings.parse("preempt=true", props(AgentSettings.PREEMPT, "false"), 1).preempt());

        AgentSettings scoped = AgentSettings.parse("preempt.include=com.acme.;org.example.Main,parallelism=2",
                props(AgentSettings.PREEMPT_EXCLUDE, "com.acme.generated.;com.acme.Proxy$"), 1);
        assertEquals(List.of("com.acme.", "org.example.Main"), scoped.preemptInclude());
        assertEquals(List.of("com.acme.generated.", "com.acme.Proxy$"), scoped.preemptExclude());
        assertEquals(2, scoped.parallelism(), "a ; inside an argument does not end it");
        assertEquals(List.of("\u00e9t\u00e9."), AgentSettings.parse("preempt.include=\u00e9t\u00e9.", props(), 1).preemptInclude(),
                "any Java identifier");
    }

    @Test
    void theMXBeanCanBeTurnedOff() {
        assertTrue(AgentSettings.parse(null, props(), 1).mxbean());
        assertFalse(AgentSettings.parse("mxbean=false", props(), 1).mxbean());
        assertFalse(AgentSettings.parse(null, props(AgentSettings.MXBEAN, "false"), 1).mxbean());
        assertTrue(AgentSettings.parse("mxbean=true", props(AgentSettings.MXBEAN, "false"), 1).mxbean());
        assertBad("loom-gmp: bad value \"off\" for system property gmp.mxbean: expected true or false",
                null, props(AgentSettings.MXBEAN, "off"));
    }

    @Test
    void timersCanBeTurnedOff() {
        assertTrue(AgentSettings.parse(null, props(), 1).timers());
        assertFalse(AgentSettings.parse("timers=false", props(), 1).timers());
        assertFalse(AgentSettings.parse(null, props(AgentSettings.TIMERS, "false"), 1).timers());
        assertBad("loom-gmp: bad value \"no\" for agent argument timers: expected true or false", "timers=no", props());
    }

    @Test
    void durationsTakeUnits() {
        assertEquals(Duration.ofNanos(700), AgentSettings.parse("timeslice=700ns", props(), 1).timeSlice());
        assertEquals(Duration.ofNanos(5_000), AgentSettings.parse("timeslice=5us", props(), 1).timeSlice());
        assertEquals(Duration.ofSeconds(2), AgentSettings.parse("timeslice=2s", props(), 1).timeSlice());
        assertEquals(1000, AgentSettings.parse("schedtrace=1000", props(), 1).schedtraceMillis());
    }

    @Test
    void latencySampleDefaultsToGosEightAndTakesZeroToAMillion() {
        assertEquals(8, AgentSettings.parse(null, props(), 1).latencySample());
        assertEquals(1, AgentSettings.parse("latency.sample=1", props(), 1).latencySample());
        assertEquals(0, AgentSettings.parse(null, props(AgentSettings.LATENCY_SAMPLE, "0"), 1).latencySample());
        assertEquals(1_000_000, AgentSettings.parse("latency.sample=1000000", props(), 1).latencySample());
        assertEquals(64, AgentSettings.parse("latency.sample=64", props(AgentSettings.LATENCY_SAMPLE, "2"), 1)
                .latencySample(), "the agent argument wins");
        for (String bad : List.of("-1", "1000001", "eight", "", "1e3", "99999999999")) {
            assertBad("loom-gmp: bad value \"" + bad + "\" for system property gmp.latency.sample: expected a whole"
                    + " number from 0 to 1000000: about one task in N is timed (1 times every task, 0 turns sampling off)",
                    null, props(AgentSettings.LATENCY_SAMPLE, bad));
        }
        assertBad("loom-gmp: bad value \"off\" for agent argument latency.sample: expected a whole number from 0 to"
                + " 1000000: about one task in N is timed (1 times every task, 0 turns sampling off)",
                "latency.sample=off", props());
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
        assertBad("loom-gmp: unknown agent argument \"quiet\"; accepted: parallelism=N, maxPoolSize=N,"
                + " timeslice=DURATION, keepalive=DURATION, schedtrace=MS, latency.sample=N, preempt=true|false,"
                + " preempt.include=PREFIXES, preempt.exclude=PREFIXES, mxbean=true|false, timers=true|false,"
                + " verbose=true|false, strict=true|false", "quiet", props());
    }

    @Test
    void badPreemptionAndKeepAliveValuesAreRefusedWithTheSettingNamed() {
        assertBad("loom-gmp: bad value \"0s\" for agent argument keepalive: expected a positive duration with a unit:"
                + " ns, us, ms or s (e.g. 30s)", "keepalive=0s", props());
        assertBad("loom-gmp: bad value \"30\" for system property gmp.keepalive: expected a positive duration with a"
                + " unit: ns, us, ms or s (e.g. 30s)", null, props(AgentSettings.KEEPALIVE, "30"));
        assertBad("loom-gmp: bad value \"yes\" for system property gmp.preempt: expected true or false",
                null, props(AgentSettings.PREEMPT, "yes"));
        assertBad("loom-gmp: bad value \"False\" for agent argument preempt: expected true or false",
                "preempt=False", props());
        assertBad("loom-gmp: bad value \"com..acme\" for agent argument preempt.include: expected package prefixes"
                + " separated by ';' such as com.acme.;org.example. (\"com..acme\" is not a dotted Java name)",
                "preempt.include=com..acme", props());
        assertBad("loom-gmp: bad value \"com.acme.;;org.x.\" for system property gmp.preempt.exclude: expected package"
                + " prefixes separated by ';' such as com.acme.;org.example. (\"\" is not a dotted Java name)",
                null, props(AgentSettings.PREEMPT_EXCLUDE, "com.acme.;;org.x."));
        assertBad("loom-gmp: bad value \"com.acme.;\" for system property gmp.preempt.include: expected package"
                + " prefixes separated by ';' such as com.acme.;org.example. (\"\" is not a dotted Java name)",
                null, props(AgentSettings.PREEMPT_INCLUDE, "com.acme.;"));
        assertBad("loom-gmp: bad value \"com/acme/\" for agent argument preempt.exclude: expected package prefixes"
                + " separated by ';' such as com.acme.;org.example. (\"com/acme/\" is not a dotted Java name)",
                "preempt.exclude=com/acme/", props());
        assertBad("loom-gmp: bad value \"9lives.\" for agent argument preempt.include: expected package prefixes"
                + " separated by ';' such as com.acme.;org.example. (\"9lives.\" is not a dotted Java name)",
                "preempt.include=9lives.", props());
        assertBad("loom-gmp: bad value \"\" for system property gmp.preempt.include: expected package prefixes"
                + " separated by ';' such as com.acme.;org.example. (\"\" is not a dotted Java name)",
                null, props(AgentSettings.PREEMPT_INCLUDE, ""));
    }

    @Test
    void verboseIsOffUnlessAskedFor() {
        assertFalse(AgentSettings.parse(null, props(), 1).verbose());
        assertTrue(AgentSettings.parse("verbose=true", props(), 1).verbose());
        assertTrue(AgentSettings.parse(null, props(AgentSettings.VERBOSE, "true"), 1).verbose());
        assertFalse(AgentSettings.parse("verbose=false", props(AgentSettings.VERBOSE, "true"), 1).verbose());
        assertBad("loom-gmp: bad value \"yes\" for agent argument verbose: expected true or false",
                "verbose=yes", props());
    }

    @Test
    void strictIsOffUnlessAskedForAndTakesTrueOrFalse() {
        assertFalse(AgentSettings.parse(null, props(), 1).strict());
        assertTrue(AgentSettings.parse("strict=true", props(), 1).strict());
        assertTrue(AgentSettings.parse(null, props(AgentSettings.STRICT, "true"), 1).strict());
        assertFalse(AgentSettings.parse("strict=false", props(AgentSettings.STRICT, "true"), 1).strict(),
                "the agent argument wins");
        assertBad("loom-gmp: bad value \"yes\" for agent argument strict: expected true or false", "strict=yes", props());
        assertBad("loom-gmp: bad value \"TRUE\" for system property gmp.strict: expected true or false",
                "strict=true", props(AgentSettings.STRICT, "TRUE"));
    }

    @Test
    void theSettingsInForceAreShownAsAgentArgumentsInTheTablesOrder() {
        assertEquals("parallelism=8,maxPoolSize=256,timeslice=10ms,keepalive=30s,schedtrace=0,latency.sample=8,"
                + "preempt=true,preempt.include=,preempt.exclude=,mxbean=true,timers=true,verbose=false,strict=false",
                AgentSettings.parse(null, props(), 8).inForce());
        assertEquals("parallelism=2,maxPoolSize=3,timeslice=500us,keepalive=1500ms,schedtrace=100,latency.sample=1,"
                + "preempt=false,preempt.include=com.acme.;org.x.,preempt.exclude=com.acme.gen.,mxbean=false,timers=false,"
                + "verbose=true,strict=true",
                AgentSettings.parse("parallelism=2,maxPoolSize=3,timeslice=500us,keepalive=1500ms,schedtrace=100,"
                        + "latency.sample=1,preempt=false,preempt.include=com.acme.;org.x.,preempt.exclude=com.acme.gen.,mxbean=false,"
                        + "timers=false,verbose=true,strict=true", props(), 8).inForce());
        assertEquals("timeslice=700ns", AgentSettings.parse("timeslice=700ns", props(), 1).inForce().split(",")[2]);
        assertTrue(AgentSettings.parse(null, props(), 1).withTimers(false).inForce().contains(",timers=false,"));
    }

    private static void assertBad(String message, String arguments, Properties properties) {
        AgentSettings.BadSetting e = assertThrows(AgentSettings.BadSetting.class,
                () -> AgentSettings.parse(arguments, properties, 2));
        assertEquals(message, e.getMessage());
    }
}
