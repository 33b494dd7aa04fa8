package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentJar;
import io.loomgmp.bridge.runtime.AgentRelease;

import java.lang.reflect.InvocationTargetException;

/**
 * The agent jar's {@code Main-Class}: {@code java -jar loom-gmp-agent.jar} prints the version, the
 * supported JDKs, how to attach the agent and its settings ({@link AgentUsage}, from
 * {@link AgentSetting}); {@code --version} prints the first two alone; {@code run <java args>}
 * runs an application with the agent ({@link AgentJarRun}). Compiled for Java 8, like
 * {@link AgentEntry}: on a JDK too old to load the rest it still says which JDK it needs.
 */
public final class AgentJarMain {
    private AgentJarMain() {
    }

    public static void main(String[] args) throws Throwable {
        AgentRelease release = AgentRelease.current();
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println("loom-gmp " + release.version());
            System.out.println("supported JDKs: " + join(release));
            return;
        }
        boolean run = args.length > 0 && args[0].equals("run");
        boolean help = args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"));
        if (args.length > 0 && !run && !help) {
            System.err.println("loom-gmp: the agent jar takes no arguments but --version, --help and run (java -jar "
                    + AgentJar.path() + " prints its usage); agent settings go after -javaagent:"
                    + AgentJar.path() + "=");
            System.exit(2);
        }
        int oldest = release.supportedJdks().get(0);
        if (AgentRelease.runningFeature() < oldest) {
            // The rest of the agent is compiled for the oldest supported JDK: this one cannot load it.
            System.out.println("loom-gmp " + release.version() + " agent: supports " + release.supportedJdksText() + ".");
            System.out.println("This JDK is " + AgentRelease.runningJdk() + ": run this with "
                    + release.supportedJdksText() + " to see the agent's settings.");
            System.exit(1);
        }
        try {
            if (run) {
                String[] rest = new String[args.length - 1];
                System.arraycopy(args, 1, rest, 0, rest.length);
                System.exit((Integer) Class.forName("io.loomgmp.bridge.agent.AgentJarRun")
                        .getDeclaredMethod("run", String[].class, String.class)
                        .invoke(null, rest, AgentJar.path()));
            }
            System.out.print(Class.forName("io.loomgmp.bridge.agent.AgentUsage")
                    .getDeclaredMethod("text", AgentRelease.class, String.class)
                    .invoke(null, release, AgentJar.path()));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static String join(AgentRelease release) {
        StringBuilder text = new StringBuilder();
        for (Integer feature : release.supportedJdks()) {
            text.append(text.length() == 0 ? "" : ",").append(feature);
        }
        return text.toString();
    }
}
