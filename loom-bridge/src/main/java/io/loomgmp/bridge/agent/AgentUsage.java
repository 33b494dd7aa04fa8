package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentRelease;

/**
 * What {@code java -jar loom-gmp-agent.jar} prints (through {@link AgentJarMain}): the version, the
 * supported JDKs, how to attach the agent, and every setting from {@link AgentSetting}, so that
 * the list cannot drift from what the agent parses.
 */
final class AgentUsage {
    private AgentUsage() {
    }

    static String text(AgentRelease release, String agentJar) {
        StringBuilder out = new StringBuilder();
        out.append("loom-gmp ").append(release.version())
                .append(": the agent that runs every virtual thread of a JVM on Go's G-M-P scheduler.\n");
        out.append("Supported JDKs: ").append(release.supportedJdksText()).append(". This JDK: ")
                .append(AgentRelease.runningJdk())
                .append(release.supports(AgentRelease.runningFeature()) ? ", supported.\n"
                        : ", NOT supported: on it the agent warns and steps aside (strict=true: refuses to start).\n");
        out.append("\nAttach it to a JVM (settings after '=', comma-separated):\n");
        out.append("  java -javaagent:").append(agentJar).append("[=setting=value,...] -jar app.jar\n");
        out.append("  e.g. java -javaagent:").append(agentJar).append("=parallelism=4,timeslice=5ms -jar app.jar\n");
        out.append("  or: java -jar ").append(agentJar).append(" run [--agent-args setting=value,...] -jar app.jar\n");
        out.append("Without the -javaagent option the application runs on the JDK's default virtual-thread scheduler.\n");
        out.append("\nSettings: an agent argument, or the system property -D<property>=value;"
                + " the agent argument wins.\n");
        for (AgentSetting setting : AgentSetting.values()) {
            out.append(String.format("  %-24s -D%-40s default: %s%n", setting.argumentForm(), setting.property,
                    setting.defaultValue));
            out.append("      ").append(setting.accepted)
                    .append(setting.changesAtRunTime() ? "; changes at run time (VirtualThreadSchedulerMXBean.setParallelism)" : "")
                    .append('\n');
        }
        return out.toString();
    }
}
