package io.loomgmp.bridge;

import java.io.File;
import java.net.URISyntaxException;
import java.security.CodeSource;

/** Where the agent's classes were loaded from, for messages. Compiled for Java 8, like {@link AgentEntry}. */
final class AgentJar {
    private AgentJar() {
    }

    /** The agent jar's path, or a placeholder when the classes did not come from a file. */
    static String path() {
        CodeSource source = AgentJar.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null) {
            return "/path/to/loom-gmp-agent.jar";
        }
        try {
            return new File(source.getLocation().toURI()).getPath();
        } catch (URISyntaxException | IllegalArgumentException e) {
            return source.getLocation().toString();
        }
    }
}
