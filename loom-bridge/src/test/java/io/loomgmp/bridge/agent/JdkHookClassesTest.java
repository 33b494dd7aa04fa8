package io.loomgmp.bridge.agent;

import org.junit.jupiter.api.Test;

import java.lang.classfile.ClassFile;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class JdkHookClassesTest {
    @Test
    void theBytesInTheBuildAreTheOnesThisSourceBuilds() {
        for (Map.Entry<String, byte[]> hook : JdkHookClasses.build().entrySet()) {
            assertArrayEquals(hook.getValue(), JdkHookClasses.read(hook.getKey()),
                    hook.getKey() + ": rebuild the module (process-classes runs JdkHookClasses)");
        }
    }

    @Test
    void bothHooksVerify() {
        assertEquals(List.of(), ClassFile.of().verify(JdkHookClasses.schedulerHook()));
        assertEquals(List.of(), ClassFile.of().verify(JdkHookClasses.queuedWorkHook()));
    }

    @Test
    void aMissingHookIsNamed() {
        IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> JdkHookClasses.read("java.lang.NoSuchHook"));
        assertEquals("loom-gmp: io/loomgmp/bridge/jdk-hooks/java.lang.NoSuchHook.bytes is missing from the agent's jar",
                e.getMessage());
    }
}
