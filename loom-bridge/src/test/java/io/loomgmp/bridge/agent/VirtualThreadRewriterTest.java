package io.loomgmp.bridge.agent;

import io.loomgmp.bridge.runtime.AgentRelease;

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
        // No constructor reads DEFAULT_SCHEDULER any more: each calls the hook in its place.
        for (MethodModel constructor : ClassFile.of().parse(rewrite.bytes()).methods()) {
            if (!constructor.methodName().equalsString("<init>")) {
                continue;
            }
            for (var element : constructor.code().orElseThrow()) {
                assertTrue(!(element instanceof java.lang.classfile.instruction.FieldInstruction field)
                        || !field.name().equalsString(VirtualThreadRewriter.FIELD), "still reads " + element);
            }
        }
        long hookCalls = ClassFile.of().parse(rewrite.bytes()).methods().stream()
                .filter(m -> m.methodName().equalsString("<init>"))
                .flatMap(m -> m.code().orElseThrow().elementStream())
                .filter(e -> e instanceof InvokeInstruction invoke
                        && invoke.owner().asInternalName().equals(SchedulerHook.INTERNAL_NAME)
                        && invoke.name().equalsString(SchedulerHook.METHOD)
                        && invoke.typeSymbol().descriptorString().equals(SchedulerHook.METHOD_DESCRIPTOR))
                .count();
        assertEquals(1, hookCalls, "the constructors call the hook once");
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
    void theUnsupportedJdkReasonSaysWhatDiffersAndWhatTheAgentSupports() {
        AgentRelease release = AgentRelease.current();
        assertEquals("what differs; the loom-gmp " + release.version() + " agent supports "
                + release.supportedJdksText() + "'s java.lang.VirtualThread",
                new GmpAgent.UnsupportedJdk("what differs").getMessage());
    }

    @Test
    void aScheduleMethodThatCannotBePrefixedLeavesTimersOffNotTheConstructor() throws Exception {
        byte[] stranger = standIn(1, type -> type.withMethodBody(VirtualThreadRewriter.SCHEDULE,
                java.lang.constant.MethodTypeDesc.ofDescriptor(VirtualThreadRewriter.SCHEDULE_DESCRIPTOR),
                ClassFile.ACC_PRIVATE, code -> {
                    // A CharacterRangeTable holds code offsets that ClassPatch does not move.
                    java.lang.classfile.Label start = code.newLabel();
                    java.lang.classfile.Label end = code.newLabel();
                    code.labelBinding(start).aconst_null().labelBinding(end).areturn()
                            .with(java.lang.classfile.instruction.CharacterRange.of(start, end, 1, 2,
                                    java.lang.classfile.instruction.CharacterRange.FLAG_STATEMENT));
                }));
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        byte[] rewritten = rewriter.transform(null, null, VirtualThreadRewriter.VIRTUAL_THREAD, null, null, stranger);
        assertEquals(1, rewriter.lastRewrites(), "the constructor alone");
        assertNull(rewriter.lastShapeProblem());
        assertEquals("cannot prefix java.lang.VirtualThread.schedule: the code of schedule"
                + VirtualThreadRewriter.SCHEDULE_DESCRIPTOR + " has a CharacterRangeTable attribute", rewriter.lastTimersProblem());
        assertEquals(List.of(), ClassFile.of().verify(rewritten));
    }

    @Test
    void aConstructorReadingTheFieldTwiceIsLeftAlone() throws Exception {
        byte[] stranger = standIn(2, type -> { });
        VirtualThreadRewriter rewriter = new VirtualThreadRewriter(true);
        assertNull(rewriter.transform(null, null, VirtualThreadRewriter.VIRTUAL_THREAD, null, null, stranger),
                "not rewritten");
        assertEquals(0, rewriter.lastRewrites());
        assertEquals("expected one read of VirtualThread.DEFAULT_SCHEDULER in a constructor, found 2"
                + " (methods reading it: [<init>()V, <init>()V])", rewriter.lastShapeProblem());
    }

    /**
     * A stand-in java.lang.VirtualThread: a static DEFAULT_SCHEDULER, a constructor that reads it
     * {@code reads} times, and what {@code more} adds.
     */
    private static byte[] standIn(int reads, java.util.function.Consumer<java.lang.classfile.ClassBuilder> more) {
        ClassDesc self = ClassDesc.of("java.lang.VirtualThread");
        ClassDesc executor = ClassDesc.of("java.util.concurrent.Executor");
        return ClassFile.of().build(self, type -> {
            type.withField(VirtualThreadRewriter.FIELD, executor, ClassFile.ACC_STATIC)
                    .withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC, code -> {
                        code.aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME, ConstantDescs.MTD_void);
                        for (int i = 0; i < reads; i++) {
                            code.getstatic(self, VirtualThreadRewriter.FIELD, executor).pop();
                        }
                        code.return_();
                    });
            more.accept(type);
        });
    }
}
