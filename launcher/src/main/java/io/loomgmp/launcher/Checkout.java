package io.loomgmp.launcher;

import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The checkout the launcher runs from, and the jars and files of it that the commands use. The
 * root is the launcher jar's checkout (launcher/target/loom-gmp-launcher.jar), as a real path: the
 * {@code loomgmp} script may be reached through a symbolic link, and the paths printed (the agent
 * jar, the JFR settings) must be the checkout's. {@code -Dloomgmp.root} names another (the tests).
 */
record Checkout(Path root) {
    /** The jars the commands run, each with the module that builds it. */
    enum Jar {
        LAUNCHER("launcher", "launcher/target/loom-gmp-launcher.jar"),
        AGENT("loom-bridge", "loom-bridge/target/loom-gmp-agent.jar"),
        TRACE("trace-viewer", "trace-viewer/target/loom-gmp-trace.jar"),
        DEMO("demo", "demo/target/loom-gmp-demo.jar"),
        BENCHMARKS("benchmarks", "benchmarks/target/benchmarks.jar"),
        SOAK("soak", "soak/target/loom-gmp-soak.jar");

        final String module;
        final String path;

        Jar(String module, String path) {
            this.module = module;
            this.path = path;
        }
    }

    static Checkout find() {
        String given = System.getProperty("loomgmp.root");
        if (given != null) {
            return new Checkout(real(Path.of(given)));
        }
        try {
            Path jar = Path.of(Checkout.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // launcher/target/loom-gmp-launcher.jar, or launcher/target/classes when run from the build
            return new Checkout(real(jar.getParent().getParent().getParent()));
        } catch (URISyntaxException e) {
            throw new IllegalStateException("the launcher's own location: " + e.getMessage(), e);
        }
    }

    private static Path real(Path path) {
        try {
            return path.toRealPath();
        } catch (java.io.IOException e) {
            return path.toAbsolutePath().normalize();
        }
    }

    Path jar(Jar jar) {
        return root.resolve(jar.path);
    }

    Path agentJar() {
        return jar(Jar.AGENT);
    }

    /** Where loom-gmp's JFR settings files are: printed by {@code jfc}, read where they are. */
    Path jfcDir() {
        return root.resolve("jfr-events/src/main/resources/io/loomgmp/jfr");
    }

    /** {@code path} relative to the checkout when it is in it, for messages. */
    String shortName(Path path) {
        Path p = path.toAbsolutePath().normalize();
        return p.startsWith(root) ? root.relativize(p).toString() : p.toString();
    }
}
