package io.loomgmp.benchmarks.saturation;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * The {@code vthread} server: plain HTTP/1.1 with keep-alive, a virtual thread per connection that
 * reads, handles and answers its requests one after another with blocking socket I/O, the way a
 * hand-written server on virtual threads does. No framework between the socket and
 * {@link Endpoints}: what this server costs is the scheduler's and the JDK's sockets'.
 *
 * <p>The accept loop runs on a platform thread (as Jetty's acceptor does), so that both servers
 * accept connections alike and a scheduler that starves virtual threads delays requests, not
 * connections. Parsing is minimal: the request line, and of the headers only
 * {@code Content-Length} (a body is read and ignored) and {@code Connection}; anything it cannot
 * parse closes the connection.
 */
final class PlainServer implements AutoCloseable {
    /** The longest request head accepted: wrk's and the open-loop client's are under 200 bytes. */
    static final int MAX_HEAD = 8_192;

    private final ServerSocket listener;
    private final Endpoints endpoints;

    private PlainServer(ServerSocket listener, Endpoints endpoints) {
        this.listener = listener;
        this.endpoints = endpoints;
    }

    /** Listens on 127.0.0.1:{@code port} (0: any free port) and starts accepting. */
    static PlainServer start(int port, Endpoints endpoints) throws IOException {
        ServerSocket listener = new ServerSocket(port, 4_096, InetAddress.getLoopbackAddress());
        PlainServer server = new PlainServer(listener, endpoints);
        Thread acceptor = Thread.ofPlatform().name("vthread-acceptor").daemon().start(server::accept);
        acceptor.setUncaughtExceptionHandler((t, e) -> e.printStackTrace());
        return server;
    }

    int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (listener.isClosed()) {
                    return;
                }
                System.err.println("vthread server: accept failed: " + e);
                continue;
            }
            Thread.ofVirtual().start(() -> serve(socket));
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setTcpNoDelay(true);
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            HeadReader reader = new HeadReader(in);
            while (true) {
                Request request = reader.next();
                if (request == null) {
                    return; // the client closed the connection, or sent what this server does not parse
                }
                Endpoints.Answer answer = endpoints.answer(request.path, request.query);
                out.write(response(answer, request.keepAlive));
                if (!request.keepAlive) {
                    return;
                }
            }
        } catch (IOException e) {
            // the client went away (a load generator stopping mid-request): nothing to answer
        }
    }

    static byte[] response(Endpoints.Answer answer, boolean keepAlive) {
        String head = "HTTP/1.1 " + answer.status() + (answer.status() == 200 ? " OK" : " Error")
                + "\r\nContent-Type: text/plain\r\nContent-Length: " + answer.body().length
                + (keepAlive ? "" : "\r\nConnection: close") + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] bytes = Arrays.copyOf(headBytes, headBytes.length + answer.body().length);
        System.arraycopy(answer.body(), 0, bytes, headBytes.length, answer.body().length);
        return bytes;
    }

    /** A parsed request: its path, its query (null if none) and whether the connection stays open. */
    record Request(String path, String query, boolean keepAlive) {
    }

    /**
     * Reads request heads from one connection, keeping any bytes that follow a head (the start of
     * a pipelined request) for the next.
     */
    static final class HeadReader {
        private final InputStream in;
        private final byte[] buffer = new byte[MAX_HEAD];
        private int start;
        private int end;

        HeadReader(InputStream in) {
            this.in = in;
        }

        /** The next request, or null at the end of the stream or on a head it cannot parse. */
        Request next() throws IOException {
            int headEnd;
            while ((headEnd = find(buffer, start, end)) < 0) {
                if (start > 0) { // make room: move what is left of the buffer to its front
                    System.arraycopy(buffer, start, buffer, 0, end - start);
                    end -= start;
                    start = 0;
                }
                if (end == buffer.length) {
                    return null; // a head longer than MAX_HEAD
                }
                int read = in.read(buffer, end, buffer.length - end);
                if (read < 0) {
                    return null;
                }
                end += read;
            }
            String head = new String(buffer, start, headEnd - start, StandardCharsets.ISO_8859_1);
            start = headEnd + 4;
            Request request = parse(head);
            if (request == null) {
                return null;
            }
            long bodyLength = contentLength(head);
            if (bodyLength < 0) {
                return null;
            }
            skip(bodyLength);
            return request;
        }

        private void skip(long bodyLength) throws IOException {
            long buffered = Math.min(bodyLength, end - start);
            start += (int) buffered;
            long left = bodyLength - buffered;
            while (left > 0) {
                long skipped = in.skip(left);
                if (skipped <= 0) {
                    if (in.read() < 0) {
                        throw new IOException("the body ended early");
                    }
                    skipped = 1;
                }
                left -= skipped;
            }
        }

        /** Where the head's closing CRLF CRLF starts, or -1. */
        static int find(byte[] bytes, int from, int to) {
            for (int i = from; i + 3 < to; i++) {
                if (bytes[i] == '\r' && bytes[i + 1] == '\n' && bytes[i + 2] == '\r' && bytes[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }
    }

    /** The request line and {@code Connection} header of {@code head} (without its final CRLF CRLF), or null if malformed. */
    static Request parse(String head) {
        int lineEnd = head.indexOf("\r\n");
        String requestLine = lineEnd < 0 ? head : head.substring(0, lineEnd);
        String[] parts = requestLine.split(" ");
        if (parts.length != 3 || !parts[1].startsWith("/") || !parts[2].startsWith("HTTP/1.")) {
            return null;
        }
        String target = parts[1];
        int question = target.indexOf('?');
        String path = question < 0 ? target : target.substring(0, question);
        String query = question < 0 ? null : target.substring(question + 1);
        String connection = header(head, "connection");
        boolean keepAlive = parts[2].equals("HTTP/1.1")
                ? !"close".equalsIgnoreCase(connection)
                : "keep-alive".equalsIgnoreCase(connection);
        return new Request(path, query, keepAlive);
    }

    /** The Content-Length of {@code head}: 0 if it has none, -1 if it is not a number. */
    static long contentLength(String head) {
        String value = header(head, "content-length");
        if (value == null) {
            return 0;
        }
        try {
            long length = Long.parseLong(value);
            return length < 0 ? -1 : length;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The value of the header {@code lowerCaseName} in {@code head}, trimmed, or null. */
    static String header(String head, String lowerCaseName) {
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals(lowerCaseName)) {
                return line.substring(colon + 1).trim();
            }
        }
        return null;
    }

    @Override
    public void close() throws IOException {
        listener.close();
    }
}
