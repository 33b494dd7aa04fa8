package io.loomgmp.testsupport;

import java.nio.file.Path;

/** The system properties a module's pom sets for its tests (surefire's or failsafe's systemPropertyVariables). */
public final class Required {
    private Required() {
    }

    /**
     * The property's value.
     *
     * @throws IllegalStateException naming the property, if it is not set: the test was not run
     *         through Maven, or the pom does not set it
     */
    public static String property(String name) {
        String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("system property " + name + " is not set: run the test through Maven"
                    + " (the module's pom sets it for surefire or failsafe)");
        }
        return value;
    }

    /** The property's value as a path, as {@link #property(String)}. */
    public static Path path(String name) {
        return Path.of(property(name));
    }
}
