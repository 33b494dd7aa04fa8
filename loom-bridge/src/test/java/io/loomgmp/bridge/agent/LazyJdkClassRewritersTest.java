package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.classfile.ClassFile;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two rewriters of JDK classes that load only when used (the scheduler MXBean's factory and
 * jcmd's scheduler command): on the running JDK's bytes they patch one site and the class still
 * verifies, silently; on a class of another shape, or bytes they cannot read, they leave it
 * alone and warn once.
 */
class LazyJdkClassRewritersTest {
    private final ByteArrayOutputStream warned = new ByteArrayOutputStream();
    private final PrintStream warnings = new PrintStream(warned, true, StandardCharsets.UTF_8);

    private List<LazyJdkClassRewriter> rewriters() {
        return List.of(new VirtualThreadSchedulerImplsRewriter(warnings), new JcmdSchedulerRewriter(warnings));
    }

    private static byte[] jdkClass(String internalName) throws IOException {
        try (InputStream in = ClassLoader.getSystemResourceAsStream(internalName + ".class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void theRunningJdksClassesArePatchedOnceAndStillVerify() throws IOException {
        for (LazyJdkClassRewriter rewriter : rewriters()) {
            byte[] original = jdkClass(rewriter.className().replace('.', '/'));
            JdkClassRewriter.Rewrite rewrite = rewriter.apply(original);
            assertEquals(1, rewrite.sites(), rewriter.className() + "; warned: " + warned);
            assertTrue(ClassFile.of().verify(rewrite.bytes()).isEmpty(),
                    rewriter.className() + ": " + ClassFile.of().verify(rewrite.bytes()));
        }
        assertEquals("", warned.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aClassOfAnotherShapeIsLeftAloneWithOneWarning() throws IOException {
        byte[] stranger = jdkClass("java/lang/Object");
        for (LazyJdkClassRewriter rewriter : rewriters()) {
            warned.reset();
            assertEquals(0, rewriter.apply(stranger).sites());
            assertEquals(0, rewriter.apply(stranger).sites());
            String text = warned.toString(StandardCharsets.UTF_8);
            assertEquals(1, text.lines().count(), "warned once: " + text);
            assertTrue(text.startsWith("loom-gmp: warning: left " + rewriter.className() + " alone")
                    && text.contains("no static ") && text.contains(rewriter.lost()), text);
        }
    }

    @Test
    void bytesThatCannotBeReadAreLeftAloneWithOneWarning() {
        for (LazyJdkClassRewriter rewriter : rewriters()) {
            warned.reset();
            assertEquals(0, rewriter.apply(new byte[] {(byte) 0xCA, (byte) 0xFE, 0, 1}).sites());
            String text = warned.toString(StandardCharsets.UTF_8);
            assertEquals(1, text.lines().count(), "warned once: " + text);
            assertTrue(text.contains(rewriter.className()) && text.contains(rewriter.lost()), text);
        }
    }
}
