package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The decision on a JDK the agent cannot put on GMP: a warning and start-up goes on, or, with
 * {@code strict}, a refusal; each one line. And {@code strict} read, for JDKs too old for
 * {@link AgentSettings}, exactly as AgentSettings reads it.
 */
class UnsupportedJdkPolicyTest {
    private static final String JDK = System.getProperty("java.runtime.version") + " ("
            + System.getProperty("java.vm.vendor") + ", java.home " + System.getProperty("java.home") + ")";

    private static Properties props(String... keyValues) {
        Properties p = new Properties();
        for (int i = 0; i < keyValues.length; i += 2) {
            p.setProperty(keyValues[i], keyValues[i + 1]);
        }
        return p;
    }

    @Test
    void theJdkIsNamedByItsFullVersionVendorAndHome() {
        assertEquals(Runtime.version() + " (" + System.getProperty("java.vm.vendor") + ", java.home "
                + System.getProperty("java.home") + ")", UnsupportedJdkPolicy.jdk());
    }

    @Test
    void byDefaultOneWarningLineAndStartUpGoesOn() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = UnsupportedJdkPolicy.report("what differs; what is supported", false, "/opt/agent.jar",
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status);
        assertEquals("loom-gmp: warning: unsupported JDK " + JDK + ": what differs; what is supported. The JVM runs"
                + " without loom-gmp: virtual threads run on the JDK's default scheduler. strict=true (-Dgmp.strict=true)"
                + " makes the agent refuse to start instead.\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void strictRefusesInOneLineWithTheWaysOut() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = UnsupportedJdkPolicy.report("what differs; what is supported", true, "/opt/agent.jar",
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(1, status, "the status to exit with");
        assertEquals("loom-gmp: unsupported JDK " + JDK + ": what differs; what is supported. The JVM does not start,"
                + " as strict=true asks. To run without loom-gmp, set strict=false (the agent then warns and steps aside)"
                + " or remove the option -javaagent:/opt/agent.jar (and its arguments): virtual threads then run on the"
                + " JDK's default scheduler.\n", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void strictIsFalseUnlessAskedForAndTheAgentArgumentWins() {
        assertFalse(UnsupportedJdkPolicy.strict(null, props()));
        assertFalse(UnsupportedJdkPolicy.strict("  ", props()));
        assertTrue(UnsupportedJdkPolicy.strict("strict=true", props()));
        assertTrue(UnsupportedJdkPolicy.strict(" parallelism=abc , strict = true ,procs=2", props()),
                "other arguments, good or bad, are not its business");
        assertTrue(UnsupportedJdkPolicy.strict(null, props("gmp.strict", "true")));
        assertFalse(UnsupportedJdkPolicy.strict("strict=false", props("gmp.strict", "true")));
        assertTrue(UnsupportedJdkPolicy.strict("strict=false,strict=true", props()), "the last one, as AgentSettings");
    }

    @Test
    void aBadStrictValueIsRefusedWithTheLineAgentSettingsPrints() {
        assertEquals("loom-gmp: bad value \"yes\" for agent argument strict: expected true or false",
                assertThrows(IllegalArgumentException.class, () -> UnsupportedJdkPolicy.strict("strict=yes", props()))
                        .getMessage());
        assertEquals("loom-gmp: bad value \"on\" for system property gmp.strict: expected true or false",
                assertThrows(IllegalArgumentException.class,
                        () -> UnsupportedJdkPolicy.strict("strict=true", props("gmp.strict", "on"))).getMessage(),
                "a bad property is refused even when an argument overrides it, as AgentSettings does");
        assertEquals("loom-gmp: agent argument \"strict\" has no value: expected strict=true or strict=false",
                assertThrows(IllegalArgumentException.class, () -> UnsupportedJdkPolicy.strict("parallelism=2, strict", props()))
                        .getMessage());
    }

    /** Whatever AgentSettings accepts, it reads the same; whatever value it refuses, the same line. */
    @Test
    void readsStrictAsAgentSettingsDoes() {
        List<String> arguments = Arrays.asList(null, "", "strict=true", "strict=false", " strict =true ", "strict=",
                "strict=True", "strict=1", "parallelism=2,strict=true", "strict=true,strict=false", "verbose=true");
        List<String> properties = Arrays.asList(null, "true", "false", "", "yes");
        for (String argument : arguments) {
            for (String property : properties) {
                Properties p = property == null ? props() : props(AgentSettings.STRICT, property);
                String ours;
                String theirs;
                try {
                    ours = String.valueOf(UnsupportedJdkPolicy.strict(argument, p));
                } catch (IllegalArgumentException e) {
                    ours = e.getMessage();
                }
                try {
                    theirs = String.valueOf(AgentSettings.parse(argument, p, 2).strict());
                } catch (AgentSettings.BadSetting e) {
                    theirs = e.getMessage();
                }
                assertEquals(theirs, ours, "argument " + argument + ", property " + property);
            }
        }
    }

    @Test
    void theSettingIsTheOneAgentSettingLists() {
        assertEquals(UnsupportedJdkPolicy.ARGUMENT, AgentSetting.STRICT.argument);
        assertEquals(UnsupportedJdkPolicy.PROPERTY, AgentSetting.STRICT.property);
        assertEquals("false", AgentSetting.STRICT.defaultValue);
    }
}
