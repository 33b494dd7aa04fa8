/**
 * Virtual threads on GMP: the per-builder API and the {@code -javaagent} that makes GMP the
 * JVM-wide default. The agent jar goes on the class path, where this descriptor is ignored.
 */
module io.loomgmp.bridge {
    requires transitive io.loomgmp.dispatcher;
    requires transitive java.instrument; // GmpAgent.premain
    requires java.management;
    requires static jdk.management; // VirtualThreadSchedulerView: loaded only when jdk.management asks for it

    exports io.loomgmp.bridge;
}
