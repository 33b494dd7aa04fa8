package io.loomgmp.bridge.runtime;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;

/**
 * This build of loom-gmp: its version and the JDK feature releases the agent supports, read from
 * {@code release.properties}, which the build fills in from the parent pom's
 * {@code loomgmp.supported.jdk} (the one place the range is defined; the agent jar's
 * {@code Loom-Gmp-Supported-JDKs} manifest attribute comes from the same property). Compiled for
 * Java 8, like the agent's {@code AgentEntry}, so that any JDK can say what it is refused for.
 */
public final class AgentRelease {
    private static final String RESOURCE = "release.properties";

    private final String version;
    private final List<Integer> supportedJdks;

    private AgentRelease(String version, List<Integer> supportedJdks) {
        this.version = version;
        this.supportedJdks = supportedJdks;
    }

    /** @throws IllegalStateException when the resource is missing or was not filled in by the build */
    public static AgentRelease current() {
        byte[] bytes;
        try {
            bytes = AgentJar.read("io/loomgmp/bridge/" + RESOURCE);
        } catch (IOException e) {
            throw new IllegalStateException("loom-gmp: cannot read io/loomgmp/bridge/" + RESOURCE + ": " + e, e);
        }
        if (bytes == null) {
            throw new IllegalStateException("loom-gmp: io/loomgmp/bridge/" + RESOURCE + " is missing from the jar");
        }
        Properties properties = new Properties();
        try {
            properties.load(new ByteArrayInputStream(bytes));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalStateException("loom-gmp: cannot read io/loomgmp/bridge/" + RESOURCE + ": " + e, e);
        }
        return parse(properties.getProperty("version"), properties.getProperty("supported.jdks"));
    }

    /** @param supportedJdks comma-separated feature releases, e.g. {@code "25"} or {@code "25,26"} */
    public static AgentRelease parse(String version, String supportedJdks) {
        if (version == null || version.isEmpty() || version.contains("${")) {
            throw new IllegalStateException("loom-gmp: " + RESOURCE + " has no version (\"" + version + "\")");
        }
        List<Integer> features = new ArrayList<Integer>();
        for (String item : String.valueOf(supportedJdks).split(",")) {
            String feature = item.trim();
            if (!isFeatureRelease(feature)) {
                throw new IllegalStateException("loom-gmp: " + RESOURCE + " has a bad supported.jdks \""
                        + supportedJdks + "\": expected JDK feature releases separated by commas, e.g. 25");
            }
            features.add(Integer.valueOf(feature));
        }
        return new AgentRelease(version, Collections.unmodifiableList(features));
    }

    /** 1 to 4 digits, not starting with 0 (no regular expression: this runs in every start-up). */
    private static boolean isFeatureRelease(String text) {
        if (text.length() < 1 || text.length() > 4 || text.charAt(0) == '0') {
            return false;
        }
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) < '0' || text.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    public String version() {
        return version;
    }

    public List<Integer> supportedJdks() {
        return supportedJdks;
    }

    public boolean supports(int feature) {
        return supportedJdks.contains(feature);
    }

    /** "JDK 25" or "JDK 25 or 26" or "JDK 25, 26 or 27", for messages. */
    public String supportedJdksText() {
        StringBuilder text = new StringBuilder("JDK ");
        for (int i = 0; i < supportedJdks.size(); i++) {
            if (i > 0) {
                text.append(i == supportedJdks.size() - 1 ? " or " : ", ");
            }
            text.append(supportedJdks.get(i));
        }
        return text.toString();
    }

    /** The running JDK's feature release, from java.specification.version ("1.8", "17", "25"). */
    public static int runningFeature() {
        String spec = System.getProperty("java.specification.version");
        return Integer.parseInt(spec.startsWith("1.") ? spec.substring(2) : spec);
    }

    /** The running JDK, as AgentUsage and AgentJarMain name it: "17.0.13 (Debian, java.home /usr/lib/jvm/...)". */
    public static String runningJdk() {
        return System.getProperty("java.version") + " (" + System.getProperty("java.vm.vendor")
                + ", java.home " + System.getProperty("java.home") + ")";
    }
}
