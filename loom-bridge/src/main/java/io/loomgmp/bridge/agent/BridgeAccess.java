package io.loomgmp.bridge.agent;

/** What the bridge needs from {@code java.base}, and what to tell the user when it is missing. */
public final class BridgeAccess {
    /** The JVM flags the per-builder API needs when the agent is not used. */
    public static final String JVM_FLAGS =
            "--add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.access=ALL-UNNAMED";

    private BridgeAccess() {
    }

    public static String missingAccessMessage() {
        Module module = BridgeAccess.class.getModule();
        String target = module.isNamed() ? module.getName() : "ALL-UNNAMED";
        return "loom-gmp needs access to JDK internals to run virtual threads on its scheduler: start the JVM with "
                + "--add-opens java.base/java.lang=" + target
                + " --add-exports java.base/jdk.internal.access=" + target
                + " (or use the agent: -javaagent:loom-gmp-agent.jar, which needs neither)";
    }
}
