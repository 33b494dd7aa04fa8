package example.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.SynchronousQueue;

import static example.app.ConformanceSupport.carrierOf;
import static example.app.ConformanceSupport.print;

/**
 * Virtual threads started while the JVM shuts down must run to completion: a shutdown hook (a
 * platform thread) starts virtual threads and joins them. Among them: one that sleeps (a timer
 * under the agent), one that starts a child virtual thread and joins it (a virtual thread started
 * by a virtual thread during shutdown), and a pair handing a token back and forth through a
 * {@code SynchronousQueue} (hand-offs between virtual threads). The scheduler must neither reject
 * nor drop work during shutdown, and must not depend on anything that shutdown stops.
 *
 * <p>Argument: how the JVM shuts down: {@code return} (main returns, the last non-daemon thread
 * ends), {@code exit} ({@code System.exit(0)} from main), {@code exit-from-virtual}
 * ({@code System.exit(0)} from a virtual thread, which then waits, holding the shutdown lock, for
 * the hook; it must unmount so that the hook's virtual threads can run). Each thread prints
 * {@code shutdown.<name>.carrier=<carrier>} when done, and the hook prints whether each ended
 * within its bound and {@code shutdown.hook.done=true}.
 */
public final class ConformanceShutdown {
    public static final int ROUND_TRIPS = 100;
    private static final Duration JOIN_BOUND = Duration.ofSeconds(20);

    private ConformanceShutdown() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("conformance-hook").unstarted(ConformanceShutdown::hook));
        print("shutdown.mode", mode);
        switch (mode) {
            case "return" -> {
            }
            case "exit" -> System.exit(0);
            case "exit-from-virtual" -> {
                Thread exiter = Thread.ofVirtual().name("shutdown-exiter").start(() -> System.exit(0));
                exiter.join(JOIN_BOUND.multipliedBy(2));
                System.out.println("shutdown.notHalted=true");
                Runtime.getRuntime().halt(3);
            }
            default -> throw new IllegalArgumentException(mode);
        }
    }

    private static void done() {
        print("shutdown." + Thread.currentThread().getName() + ".carrier", carrierOf(Thread.currentThread()));
    }

    private static void hook() {
        print("shutdown.hook.started", true);
        List<Thread> threads = new ArrayList<>();
        threads.add(Thread.ofVirtual().name("shutdown-plain").start(ConformanceShutdown::done));
        threads.add(Thread.ofVirtual().name("shutdown-sleeper").start(() -> {
            try {
                Thread.sleep(50);
                done();
            } catch (InterruptedException e) {
                print("shutdown.shutdown-sleeper.interrupted", true);
            }
        }));
        threads.add(Thread.ofVirtual().name("shutdown-parent").start(() -> {
            Thread child = Thread.ofVirtual().name("shutdown-child").start(ConformanceShutdown::done);
            try {
                print("shutdown.shutdown-child.joined", child.join(JOIN_BOUND));
                done();
            } catch (InterruptedException e) {
                print("shutdown.shutdown-parent.interrupted", true);
            }
        }));
        SynchronousQueue<Integer> ping = new SynchronousQueue<>();
        SynchronousQueue<Integer> pong = new SynchronousQueue<>();
        threads.add(Thread.ofVirtual().name("shutdown-ping").start(() -> {
            try {
                int token = 0;
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    ping.put(token);
                    token = pong.take();
                }
                print("shutdown.roundTrips", token);
                done();
            } catch (InterruptedException e) {
                print("shutdown.shutdown-ping.interrupted", true);
            }
        }));
        threads.add(Thread.ofVirtual().name("shutdown-pong").start(() -> {
            try {
                for (int i = 0; i < ROUND_TRIPS; i++) {
                    pong.put(ping.take() + 1);
                }
                done();
            } catch (InterruptedException e) {
                print("shutdown.shutdown-pong.interrupted", true);
            }
        }));
        for (Thread t : threads) {
            boolean ended;
            try {
                ended = t.join(JOIN_BOUND);
            } catch (InterruptedException e) {
                ended = false;
            }
            print("shutdown." + t.getName() + ".ended", ended);
            if (!ended) {
                print("shutdown." + t.getName() + ".stuckIn", t.getState() + " " + java.util.Arrays.toString(t.getStackTrace()));
            }
        }
        print("shutdown.hook.done", true);
        System.out.flush();
    }
}
