package example.app;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static example.app.ConformanceSupport.awaitState;
import static example.app.ConformanceSupport.carrierOf;
import static example.app.ConformanceSupport.join;
import static example.app.ConformanceSupport.print;
import static example.app.ConformanceSupport.require;

/**
 * Thread dumps taken by {@code jcmd <pid> Thread.dump_to_file} (JSON and plain text) must list
 * the application's virtual threads wherever they are: parked, sleeping (a timer under the
 * agent), running on a carrier, and inside an executor's thread container. The JDK 25 dumper
 * ({@code jdk.internal.vm.ThreadDumper}) walks the thread containers from the root, which tracks
 * every virtual thread ({@code jdk.trackAllThreads} is true unless set otherwise), and writes a
 * {@code "carrier"} (the carrier's thread id) only for a mounted virtual thread in JSON; the text
 * format shows carriers only as platform threads whose stacks run a continuation.
 *
 * <p>Arguments: a directory for the two dump files. Run with {@code -Dgmp.preempt=false} (the
 * running thread must stay mounted while the dumps are taken) with the agent and without it. The
 * program runs {@code jcmd} (next to {@code java.home}'s {@code bin/java}) on its own pid while
 * its threads wait, then prints {@code key=value} lines: the files, each named thread's id, and
 * the running thread's carrier as {@code Thread.toString()} shows it; {@code VirtualThreadConformanceIT}
 * reads the files.
 */
public final class ConformanceThreadDump {
    private static volatile boolean release;
    private static volatile boolean running;

    private ConformanceThreadDump() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Thread parked = Thread.ofVirtual().name("dump-parked").start(() -> {
            while (!release) {
                LockSupport.park();
            }
        });
        Thread sleeping = Thread.ofVirtual().name("dump-sleeping").start(() -> {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                // woken at the end
            }
        });
        String[] runningCarrier = new String[1];
        Thread spinning = Thread.ofVirtual().name("dump-running").start(() -> {
            runningCarrier[0] = carrierOf(Thread.currentThread());
            running = true;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!release && System.nanoTime() - deadline < 0) {
                // mounted and RUNNABLE: no call that parks, no preemption poll (gmp.preempt=false)
            }
        });
        ExecutorService executor = Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("dump-executor-", 0).factory());
        executor.execute(() -> {
            while (!release) {
                LockSupport.park();
            }
        });
        List<Thread> threads = new ArrayList<>(List.of(parked, sleeping, spinning));

        print("dump.parked.state", awaitState(parked, Thread.State.WAITING));
        print("dump.sleeping.state", awaitState(sleeping, Thread.State.TIMED_WAITING));
        require(() -> running, "dump-running runs", () -> spinning.getState().toString());
        print("dump.running.state", spinning.getState());
        print("dump.running.carrier", runningCarrier[0]);
        for (Thread t : threads) {
            print("dump.tid." + t.getName(), t.threadId());
        }

        Path json = dir.resolve("threads.json");
        Path text = dir.resolve("threads.txt");
        print("dump.json.jcmd", jcmd("Thread.dump_to_file", "-format=json", json.toString()));
        print("dump.text.jcmd", jcmd("Thread.dump_to_file", text.toString()));
        print("dump.json.file", json);
        print("dump.text.file", text);
        print("dump.running.stillRunning", running && spinning.isAlive() && carrierOf(spinning).equals(runningCarrier[0]));

        release = true;
        LockSupport.unpark(parked);
        sleeping.interrupt();
        for (Thread t : threads) {
            join(t);
        }
        executor.shutdownNow(); // interrupts the task's park
        if (!executor.awaitTermination(ConformanceSupport.BOUND.toSeconds(), TimeUnit.SECONDS)) {
            throw new IllegalStateException("the executor's thread did not end");
        }
        print("done", true);
    }

    /** Runs jcmd on this JVM; returns its output on one line, prefixed with its exit code. */
    private static String jcmd(String... command) throws Exception {
        List<String> line = new ArrayList<>();
        line.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
        line.add(Long.toString(ProcessHandle.current().pid()));
        line.addAll(List.of(command));
        Path out = Files.createTempFile("jcmd", ".out");
        try {
            Process process = new ProcessBuilder(line).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("jcmd did not finish within 60 s: " + line);
            }
            return process.exitValue() + " " + Files.readString(out).strip().replace('\n', ' ');
        } finally {
            Files.deleteIfExists(out);
        }
    }
}
