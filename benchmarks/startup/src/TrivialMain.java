/**
 * The start-up benchmark's trivial program: starts one virtual thread and joins it, so that with
 * the agent the scheduler is installed and used once. Its run time is almost all JVM start-up.
 */
public final class TrivialMain {
    public static void main(String[] args) throws InterruptedException {
        Thread.startVirtualThread(() -> { }).join();
    }
}
