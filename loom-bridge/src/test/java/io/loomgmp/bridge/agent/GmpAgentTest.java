package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.probe.ReshapingAgent;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What makes start-up find an unsupported JDK: VirtualThread's fields, or a class the JVM will
 * not retransform ({@link GmpAgent#checkClass}), before anything is in place; and, on the bytes a
 * JVM hands over ({@link FakeInstrumentation}), whether it takes VirtualThread as rewritten
 * ({@link GmpAgent#rewrite}): the running JDK's class is rewritten whole; a class of another
 * shape, bytes the rewriter cannot read, a JVM that refuses the rewritten class or never hands
 * it over each make it an unsupported JDK, saying why, with the class as it was.
 */
class GmpAgentTest {
    private static final Class<?> VIRTUAL_THREAD = virtualThread();

    private static Class<?> virtualThread() {
        try {
            return Class.forName("java.lang.VirtualThread");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] jdkVirtualThread() throws Exception {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("java/lang/VirtualThread.class")) {
            return in.readAllBytes();
        }
    }

    /** A JVM that hands {@code bytes} to the rewriter, registered as the agent registers it. */
    private static FakeInstrumentation jvm(byte[] bytes, VirtualThreadRewriter rewriter) {
        FakeInstrumentation jvm = new FakeInstrumentation();
        jvm.classBytes = bytes;
        jvm.addTransformer(rewriter, true);
        return jvm;
    }

    private static String why(String problem) {
        return new GmpAgent.UnsupportedJdk(problem).getMessage();
    }

    @Test
    void aClassWithoutTheFieldOrThatCannotBeRetransformedIsAnUnsupportedJdk() throws Exception {
        GmpAgent.checkClass(VIRTUAL_THREAD, new FakeInstrumentation()); // the running JDK's: as expected
        assertEquals(why("java.lang.VirtualThread has no field DEFAULT_SCHEDULER"), assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.checkClass(String.class, new FakeInstrumentation())).getMessage());
        FakeInstrumentation jvm = new FakeInstrumentation() {
            @Override
            public boolean isModifiableClass(Class<?> type) {
                return false;
            }
        };
        assertEquals(why("java.lang.VirtualThread cannot be retransformed"), assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.checkClass(VIRTUAL_THREAD, jvm)).getMessage());
    }

    @Test
    void theRunningJdksVirtualThreadIsRewrittenWhole() throws Exception {
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        FakeInstrumentation jvm = jvm(jdkVirtualThread(), rewriter);
        GmpAgent.rewrite(jvm, rewriter, VIRTUAL_THREAD);
        assertEquals(2, rewriter.lastRewrites(), "the constructor and schedule");
        assertEquals(List.of(), ClassFile.of().verify(jvm.retransformed));
    }

    @Test
    void aConstructorOfAnotherShapeIsAnUnsupportedJdkAndTheClassIsLeftAsItIs() throws Exception {
        byte[] reshaped = ReshapingAgent.reshape(jdkVirtualThread());
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        FakeInstrumentation jvm = jvm(reshaped, rewriter);
        GmpAgent.UnsupportedJdk e = assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.rewrite(jvm, rewriter, VIRTUAL_THREAD));
        // The methods still reading the field: defaultScheduler(), which the constructor calls now, and the JDK's others.
        String problem = "expected one read of VirtualThread.DEFAULT_SCHEDULER in a constructor, found 0 (methods reading it: [";
        assertTrue(e.getMessage().startsWith(problem) && e.getMessage().endsWith("])" + why("")),
                e.getMessage());
        assertTrue(e.getMessage().substring(problem.length()).contains("defaultScheduler()Ljava/util/concurrent/Executor;"),
                e.getMessage());
        assertArrayEquals(reshaped, jvm.retransformed, "the rewriter handed back no bytes");
    }

    @Test
    void bytesTheRewriterCannotReadAreAnUnsupportedJdk() {
        byte[] unreadable = {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0};
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(false);
        FakeInstrumentation jvm = jvm(unreadable, rewriter);
        GmpAgent.UnsupportedJdk e = assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.rewrite(jvm, rewriter, VIRTUAL_THREAD));
        assertNotNull(rewriter.lastFailure());
        assertEquals(why("rewriting java.lang.VirtualThread failed: " + rewriter.lastFailure()), e.getMessage());
        assertArrayEquals(unreadable, jvm.retransformed);
    }

    @Test
    void aJvmThatRefusesTheRewrittenClassIsAnUnsupportedJdk() throws Exception {
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        FakeInstrumentation jvm = jvm(jdkVirtualThread(), rewriter);
        jvm.refusal = new UnsupportedOperationException("class redefinition failed: attempted to change the schema");
        GmpAgent.UnsupportedJdk e = assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.rewrite(jvm, rewriter, VIRTUAL_THREAD));
        assertEquals(why("the JVM refused the rewritten java.lang.VirtualThread: java.lang.UnsupportedOperationException:"
                + " class redefinition failed: attempted to change the schema"), e.getMessage());
    }

    @Test
    void aJvmThatNeverHandsTheClassOverIsAnUnsupportedJdk() {
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        FakeInstrumentation jvm = jvm(null, rewriter);
        GmpAgent.UnsupportedJdk e = assertThrows(GmpAgent.UnsupportedJdk.class,
                () -> GmpAgent.rewrite(jvm, rewriter, VIRTUAL_THREAD));
        assertEquals(1, jvm.retransformations);
        assertEquals(why("rewrote -1 sites of java.lang.VirtualThread, expected at least the constructor's read of"
                + " DEFAULT_SCHEDULER (the JVM did not hand the class to the rewriter)"), e.getMessage());
    }
}
