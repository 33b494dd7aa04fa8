package io.loomgmp.bridge;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The virtual thread behind a scheduled task, as JFR events name it. */
class VirtualThreadIdsTest {
    @Test
    void aVirtualThreadsContinuationTaskGivesItsThreadId() throws ReflectiveOperationException {
        Thread thread = Thread.ofVirtual().unstarted(() -> { });
        Field field = Class.forName("java.lang.VirtualThread").getDeclaredField("runContinuation");
        field.setAccessible(true); // the test JVM opens java.lang, as the agent does
        Runnable continuation = (Runnable) field.get(thread);
        assertEquals(thread.threadId(), VirtualThreadIds.of(continuation));
    }

    @Test
    void anyOtherTaskGivesZero() {
        Thread captured = Thread.currentThread();
        assertEquals(0, VirtualThreadIds.of(() -> captured.getName()), "a lambda capturing a platform thread");
        assertEquals(0, VirtualThreadIds.of(() -> { }));
        assertEquals(0, VirtualThreadIds.of(new Thread(() -> { })));
    }
}
