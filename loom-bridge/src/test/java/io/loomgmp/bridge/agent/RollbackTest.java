package io.loomgmp.bridge.agent;

import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.Test;

import java.lang.instrument.ClassFileTransformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Taking back a start-up that could not rewrite VirtualThread: the transformers it registered
 * are removed, newest first, and the scheduler is closed with its threads ended; a step that
 * throws does not keep the others from running, and is reported. (The hook is cleared in a forked
 * JVM, AgentFailOpenIT: it can be defined only once per JVM.)
 */
class RollbackTest {
    private static final AtomicInteger SCHEDULERS = new AtomicInteger();

    /** A scheduler with a name of its own, so that its threads can be told from any other's. */
    private static GmpScheduler scheduler() {
        return GmpScheduler.builder().procs(2).name("rollback-test-" + SCHEDULERS.incrementAndGet()).build();
    }

    private static List<String> threadsOf(GmpScheduler scheduler) {
        List<String> names = new ArrayList<>();
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().startsWith(scheduler.name() + "-")) {
                names.add(thread.getName());
            }
        }
        return names;
    }

    private static ClassFileTransformer transformer() {
        return new ClassFileTransformer() {
        };
    }

    @Test
    void undoRemovesTheTransformersNewestFirstAndClosesTheSchedulerWithItsThreads() {
        FakeInstrumentation instrumentation = new FakeInstrumentation();
        GmpScheduler scheduler = scheduler();
        assertTrue(threadsOf(scheduler).contains(scheduler.name() + "-sysmon"), "a built scheduler runs sysmon: "
                + threadsOf(scheduler));
        Rollback rollback = new Rollback(instrumentation, scheduler);
        ClassFileTransformer first = transformer();
        ClassFileTransformer second = transformer();
        rollback.addTransformer(first);
        rollback.addTransformer(second);
        assertEquals(List.of(true, true), instrumentation.transformers.stream().map(Map.Entry::getValue).toList(),
                "registered as retransforming transformers");

        rollback.undo();
        assertEquals(List.of(second, first), instrumentation.removed);
        assertEquals(List.of(), instrumentation.transformers);
        assertTrue(scheduler.isTerminated());
        assertEquals(List.of(), threadsOf(scheduler), "close joined sysmon and every carrier");
    }

    @Test
    void aStepThatThrowsIsReportedAndTheOthersStillRun() {
        FakeInstrumentation instrumentation = new FakeInstrumentation() {
            @Override
            public boolean removeTransformer(ClassFileTransformer transformer) {
                super.removeTransformer(transformer);
                throw new IllegalStateException("cannot remove");
            }
        };
        GmpScheduler scheduler = scheduler();
        Rollback rollback = new Rollback(instrumentation, scheduler);
        rollback.addTransformer(transformer());
        rollback.addTransformer(transformer());

        IllegalStateException failed = assertThrows(IllegalStateException.class, rollback::undo);
        assertTrue(failed.getMessage().startsWith("loom-gmp: could not take back its start-up (remove the transformer "),
                failed.getMessage());
        assertEquals("cannot remove", failed.getCause().getMessage());
        assertEquals(1, failed.getSuppressed().length, "the second removal's failure");
        assertEquals(2, instrumentation.removed.size(), "both removals were tried");
        assertTrue(scheduler.isTerminated(), "the scheduler was closed all the same");
        assertEquals(List.of(), threadsOf(scheduler));
    }
}
