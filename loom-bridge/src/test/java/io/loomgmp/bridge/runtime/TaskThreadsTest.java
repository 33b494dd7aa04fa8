package io.loomgmp.bridge.runtime;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The virtual thread behind a scheduled task, as JFR events name it. */
class TaskThreadsTest {
    @Test
    void aVirtualThreadsContinuationTaskGivesItsThread() throws ReflectiveOperationException {
        Thread thread = Thread.ofVirtual().unstarted(() -> { });
        Field field = Class.forName("java.lang.VirtualThread").getDeclaredField("runContinuation");
        field.setAccessible(true); // the test JVM opens java.lang, as the agent does
        Runnable continuation = (Runnable) field.get(thread);
        assertSame(thread, TaskThreads.of(continuation));
    }

    @Test
    void anyOtherTaskGivesNull() {
        Thread captured = Thread.currentThread();
        assertNull(TaskThreads.of(() -> captured.getName()), "a lambda capturing a platform thread");
        assertNull(TaskThreads.of(() -> { }));
        assertNull(TaskThreads.of(new Thread(() -> { })));
    }
}
