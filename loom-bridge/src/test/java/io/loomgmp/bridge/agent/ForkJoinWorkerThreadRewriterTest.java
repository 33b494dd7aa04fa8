package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeElement;
import java.lang.classfile.Instruction;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rewrite of the running JDK's ForkJoinWorkerThread: GMP's answer comes first in hasKnownQueuedWork. */
class ForkJoinWorkerThreadRewriterTest {
    @Test
    void hasKnownQueuedWorkAsksTheHookFirstAndTheClassStillVerifies() throws Exception {
        byte[] original;
        try (InputStream in = ClassLoader.getSystemResourceAsStream(
                ForkJoinWorkerThreadRewriter.FORK_JOIN_WORKER_THREAD + ".class")) {
            original = in.readAllBytes();
        }
        JdkClassRewriter.Rewrite rewrite = ForkJoinWorkerThreadRewriter.rewrite(original);
        assertEquals(1, rewrite.sites());
        MethodModel method = ClassFile.of().parse(rewrite.bytes()).methods().stream()
                .filter(m -> m.methodName().equalsString(ForkJoinWorkerThreadRewriter.METHOD)).findFirst().orElseThrow();
        CodeElement first = method.code().orElseThrow().elementStream()
                .filter(e -> e instanceof Instruction).findFirst().orElseThrow();
        assertTrue(first instanceof InvokeInstruction invoke
                && invoke.owner().asInternalName().equals(QueuedWorkHook.INTERNAL_NAME)
                && invoke.name().equalsString(QueuedWorkHook.METHOD), "first instruction: " + first);
        assertTrue(ClassFile.of().verify(rewrite.bytes()).isEmpty(), "verifies: " + ClassFile.of().verify(rewrite.bytes()));
    }
}
