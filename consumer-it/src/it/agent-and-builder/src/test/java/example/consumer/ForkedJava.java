package example.consumer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/** Runs the JDK's java in a process of its own, bounded in time, as a user would start the application. */
final class ForkedJava {
    private ForkedJava() {
    }

    record Result(int exit, String out, String err) {
        /** The {@code key=value} lines of stdout. */
        Map<String, String> values() {
            Map<String, String> values = new HashMap<>();
            out.lines().filter(l -> l.contains("=")).forEach(l -> values.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
            return values;
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    static Result java(List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(arguments);
        Path out = Files.createTempFile("consumer", ".out");
        Path err = Files.createTempFile("consumer", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            // Options from the environment would change the child JVM and print a line on stderr.
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("JDK_JAVA_OPTIONS");
            builder.environment().remove("_JAVA_OPTIONS");
            Process process = builder.start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("did not finish within 120 s: " + command);
            }
            return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
