/** An agent whose premain does nothing: the start-up cost of any {@code -javaagent}, the reference for loom-gmp's own. */
public final class EmptyAgent {
    private EmptyAgent() {
    }

    public static void premain(String arguments) {
    }
}
