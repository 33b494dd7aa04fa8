package example.consumer;

import io.loomgmp.bridge.GmpVirtualThreads;
import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** io.loomgmp:loom-bridge as a dependency: virtual threads on GMP through the per-builder API, no agent. */
class PerBuilderTest {
    @Test
    void virtualThreadsOfTheBuilderAndTheExecutorRunOnGmpCarriers() throws Exception {
        GmpScheduler gmp = GmpScheduler.builder().procs(2).name("gmp").build();
        Set<String> carriers = ConcurrentHashMap.newKeySet();
        Thread thread = GmpVirtualThreads.builder(gmp).name("consumer-", 0)
                .start(() -> carriers.add(App.carrierOf(Thread.currentThread())));
        thread.join();
        try (ExecutorService perTask = GmpVirtualThreads.newVirtualThreadPerTaskExecutor(gmp)) {
            for (int i = 0; i < 20; i++) {
                perTask.submit(() -> carriers.add(App.carrierOf(Thread.currentThread())));
            }
        }
        assertTrue(!carriers.isEmpty() && carriers.stream().allMatch(c -> c.matches("gmp-M\\d+")),
                "carriers: " + carriers);
        assertTrue(gmp.snapshot().tasksRun() >= 21, "GMP ran every virtual thread: " + gmp.snapshot());
    }
}
