package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VirtualThreadRewriterTest {
    private static byte[] jdkVirtualThread() throws Exception {
        try (InputStream in = ClassLoader.getSystemResourceAsStream("java/lang/VirtualThread.class")) {
            return in.readAllBytes();
        }
    }

    @Test
    void thisJdkHasTheExpectedShapeAndOneSiteIsRewritten() throws Exception {
        Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
        byte[] original = jdkVirtualThread();
        assertNull(VirtualThreadRewriter.shapeProblem(virtualThread, original));

        VirtualThreadRewriter.Rewrite rewrite = VirtualThreadRewriter.rewrite(original, false);
        assertEquals(1, rewrite.sites());
        assertEquals(List.of(), ClassFile.of().verify(rewrite.bytes()), "the rewritten class verifies");
        // The constructor no longer depends on the read alone: it now calls the hook after it.
        assertTrue(new String(rewrite.bytes(), java.nio.charset.StandardCharsets.ISO_8859_1)
                .contains("java/lang/LoomGmpSchedulerHook"));
    }

    @Test
    void withTimersTheScheduleMethodIsPrefixedToo() throws Exception {
        Class<?> virtualThread = Class.forName("java.lang.VirtualThread");
        byte[] original = jdkVirtualThread();
        assertNull(VirtualThreadRewriter.timersShapeProblem(virtualThread, original));

        VirtualThreadRewriter.Rewrite rewrite = VirtualThreadRewriter.rewrite(original, true);
        assertEquals(2, rewrite.sites(), "the constructor's read and schedule(Runnable, long, TimeUnit)");
        assertEquals(List.of(), ClassFile.of().verify(rewrite.bytes()), "the rewritten class verifies");
        MethodModel schedule = ClassFile.of().parse(rewrite.bytes()).methods().stream()
                .filter(m -> m.methodName().equalsString(VirtualThreadRewriter.SCHEDULE)).findFirst().orElseThrow();
        // The first call the method makes is to the hook, before the JDK's own body.
        InvokeInstruction first = schedule.code().orElseThrow().elementStream()
                .filter(InvokeInstruction.class::isInstance).map(InvokeInstruction.class::cast).findFirst().orElseThrow();
        assertEquals(SchedulerHook.CLASS_NAME, first.owner().asInternalName().replace('/', '.'));
        assertEquals(SchedulerHook.SCHEDULE_METHOD, first.name().stringValue());
    }

    @Test
    void aVirtualThreadWithoutTheScheduleMethodIsReported() throws Exception {
        byte[] stranger = ClassFile.of().build(ClassDesc.of("java.lang.VirtualThread"), type -> { });
        assertEquals("expected one method schedule(Ljava/lang/Runnable;JLjava/util/concurrent/TimeUnit;)"
                        + "Ljava/util/concurrent/Future; in java.lang.VirtualThread, found 0",
                VirtualThreadRewriter.timersShapeProblem(Class.forName("java.lang.VirtualThread"), stranger));
    }

    @Test
    void aClassWithoutTheConstructorReadIsReportedWithWhatDiffers() throws Exception {
        // A stand-in VirtualThread whose constructor never reads DEFAULT_SCHEDULER.
        byte[] stranger = ClassFile.of().build(ClassDesc.of("java.lang.VirtualThread"), type -> type
                .withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC, code -> code
                        .aload(0)
                        .invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void)
                        .return_()));
        String problem = VirtualThreadRewriter.shapeProblem(Class.forName("java.lang.VirtualThread"), stranger);
        assertEquals("expected one read of VirtualThread.DEFAULT_SCHEDULER in a constructor, found 0"
                + " (methods reading it: [])", problem);
        assertEquals("java.lang.VirtualThread has no field DEFAULT_SCHEDULER",
                VirtualThreadRewriter.shapeProblem(String.class, stranger));
    }

    @Test
    void theUnsupportedJdkMessageNamesTheJdkVersion() {
        String message = new GmpAgent.UnsupportedJdk("what differs").getMessage();
        assertTrue(message.startsWith("loom-gmp: unsupported JDK " + Runtime.version() + " ("), message);
        assertTrue(message.contains("what differs"), message);
    }

    @Test
    void theGeneratedHookVerifies() {
        assertEquals(List.of(), ClassFile.of().verify(SchedulerHook.classBytes()));
    }
}
