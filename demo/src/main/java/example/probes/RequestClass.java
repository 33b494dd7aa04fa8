package example.probes;

/**
 * One class of requests of the loaded server: {@code connections} connections, each sending
 * requests of {@code micros} µs of CPU back to back. Written {@code name=<connections>x<micros>}
 * on {@link LoadedServer}'s command line, e.g. {@code short=32x100}.
 */
record RequestClass(String name, int connections, long micros) {
    RequestClass {
        if (!name.matches("[a-z]+") || connections < 1 || micros < 1) {
            throw new IllegalArgumentException("not a request class: " + name + "=" + connections + "x" + micros);
        }
    }

    static RequestClass parse(String text) {
        int eq = text.indexOf('=');
        int x = text.indexOf('x', eq + 1);
        if (eq < 1 || x < 0) {
            throw new IllegalArgumentException("not a request class (name=<connections>x<micros>): " + text);
        }
        try {
            return new RequestClass(text.substring(0, eq), Integer.parseInt(text.substring(eq + 1, x)),
                    Long.parseLong(text.substring(x + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a request class (name=<connections>x<micros>): " + text, e);
        }
    }

    @Override
    public String toString() {
        return name + "=" + connections + "x" + micros;
    }
}
