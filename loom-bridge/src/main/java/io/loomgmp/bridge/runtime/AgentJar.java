package io.loomgmp.bridge.runtime;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.security.CodeSource;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

/**
 * Where the agent's classes were loaded from: for messages, and to read the agent's own data
 * files. Compiled for Java 8, like the agent's {@code AgentEntry}.
 */
public final class AgentJar {
    private AgentJar() {
    }

    /** The agent jar's path, or a placeholder when the classes did not come from a file. */
    public static String path() {
        File file = file();
        return file != null ? file.getPath() : "/path/to/loom-gmp-agent.jar";
    }

    /**
     * The bytes of {@code entry} (a path such as {@code io/loomgmp/bridge/release.properties}) in
     * the jar, or in the directory, that the agent's classes were loaded from; {@code null} if
     * there is no such entry. Read from the file itself rather than through
     * {@code getResourceAsStream}, which in every start-up would first search the JDK's run-time
     * image and then open a {@code jar:} URL connection: about 8 ms of class loading and
     * initialisation, against well under one for a {@link JarFile}, whose central directory the
     * JVM already holds open for the class path.
     *
     * @throws IOException if the jar or the file cannot be read
     */
    public static byte[] read(String entry) throws IOException {
        File file = file();
        if (file == null) {
            throw new IOException("the agent's classes did not come from a jar or a directory");
        }
        if (file.isDirectory()) { // the build's classes directory, as the tests run
            File data = new File(file, entry.replace('/', File.separatorChar));
            if (!data.isFile()) {
                return null;
            }
            try (InputStream in = new FileInputStream(data)) {
                return readAll(in);
            }
        }
        try (JarFile jar = new JarFile(file, false)) {
            ZipEntry found = jar.getEntry(entry);
            if (found == null) {
                return null;
            }
            try (InputStream in = jar.getInputStream(found)) {
                return readAll(in);
            }
        }
    }

    /** The jar or directory the agent's classes came from, or null if that is not a file. */
    private static File file() {
        CodeSource source = AgentJar.class.getProtectionDomain().getCodeSource();
        if (source == null || source.getLocation() == null || !"file".equals(source.getLocation().getProtocol())) {
            return null;
        }
        try {
            return new File(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return null;
        }
    }

    /** {@code InputStream.readAllBytes}, which Java 8 lacks. */
    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }
}
