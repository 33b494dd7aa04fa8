/**
 * Virtual threads on GMP: the per-builder API and the {@code -javaagent} that makes GMP the
 * JVM-wide default. Only the API ({@code io.loomgmp.bridge}) is exported: the agent
 * ({@code io.loomgmp.bridge.agent}), its class-file editing ({@code io.loomgmp.bridge.classfile}) and
 * what the API and the agent share ({@code io.loomgmp.bridge.runtime}) are not. The agent jar goes on the class path, where this descriptor is ignored.
 */
module io.loomgmp.bridge {
    requires transitive io.loomgmp.dispatcher;
    requires java.instrument; // the agent: GmpAgent.premain, the transformers
    requires java.management;
    requires static jdk.management; // VirtualThreadSchedulerView: loaded only when jdk.management asks for it

    exports io.loomgmp.bridge;
}
