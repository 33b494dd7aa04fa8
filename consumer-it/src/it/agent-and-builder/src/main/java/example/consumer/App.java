package example.consumer;

/**
 * An application that knows nothing of loom-gmp: it prints the carrier its virtual threads ran on
 * ({@code carrier=gmp-M0} under the agent, {@code carrier=ForkJoinPool-1-worker-1} without).
 */
public final class App {
    public static void main(String[] args) throws InterruptedException {
        String[] carrier = new String[1];
        Thread.ofVirtual().start(() -> carrier[0] = carrierOf(Thread.currentThread())).join();
        System.out.println("carrier=" + carrier[0]);
    }

    /** "VirtualThread[#22]/runnable@gmp-M0" -> "gmp-M0". */
    public static String carrierOf(Thread virtualThread) {
        String text = virtualThread.toString();
        int at = text.lastIndexOf('@');
        return at < 0 ? "none: " + text : text.substring(at + 1);
    }
}
