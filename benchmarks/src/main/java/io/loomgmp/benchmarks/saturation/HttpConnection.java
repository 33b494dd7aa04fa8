package io.loomgmp.benchmarks.saturation;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One keep-alive HTTP/1.1 connection to 127.0.0.1, used from one thread at a time: a {@code GET},
 * then its response, read by its {@code Content-Length}. The open-loop client's connections, and
 * the runner's reads of a server's stats port. Blocking I/O with a read timeout; which step failed
 * is told by the exception, so that the client can count errors by kind as wrk does.
 */
final class HttpConnection implements AutoCloseable {
    private static final int MAX_HEAD = 8_192;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String host;
    private final byte[] buffer = new byte[MAX_HEAD];
    private int start;
    private int end;

    /** The request could not be written: the connection is broken. */
    static final class WriteFailed extends IOException {
        private static final long serialVersionUID = 1L;

        WriteFailed(IOException cause) {
            super(cause);
        }
    }

    /** A status and a body, read as ISO-8859-1 text. */
    record Response(int status, String body) {
    }

    private HttpConnection(Socket socket, int port) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.host = InetAddress.getLoopbackAddress().getHostAddress() + ":" + port;
    }

    /**
     * Connects to 127.0.0.1:{@code port}; every read of a response then waits {@code timeoutMillis}
     * at most (a {@link java.net.SocketTimeoutException} after that).
     */
    static HttpConnection open(int port, int timeoutMillis) throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), timeoutMillis);
            socket.setSoTimeout(timeoutMillis);
            return new HttpConnection(socket, port);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** One request for {@code target} (a path with its query) and its response. */
    Response get(String target) throws IOException {
        try {
            out.write(("GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
            throw new WriteFailed(e);
        }
        int headEnd;
        while ((headEnd = PlainServer.HeadReader.find(buffer, start, end)) < 0) {
            fill();
        }
        String head = new String(buffer, start, headEnd - start, StandardCharsets.ISO_8859_1);
        start = headEnd + 4;
        int status = status(head);
        long length = PlainServer.contentLength(head);
        if (length < 0 || length > Integer.MAX_VALUE - 8) {
            throw new IOException("no usable Content-Length in the response: " + head);
        }
        byte[] body = new byte[(int) length];
        int copied = 0;
        while (copied < body.length) {
            if (start == end) {
                start = 0;
                end = 0;
                fill();
            }
            int n = Math.min(end - start, body.length - copied);
            System.arraycopy(buffer, start, body, copied, n);
            start += n;
            copied += n;
        }
        return new Response(status, new String(body, StandardCharsets.ISO_8859_1));
    }

    /** Reads more of the stream into the buffer, moving what is left to its front first. */
    private void fill() throws IOException {
        if (start > 0) {
            System.arraycopy(buffer, start, buffer, 0, end - start);
            end -= start;
            start = 0;
        }
        if (end == buffer.length) {
            throw new IOException("a response head longer than " + MAX_HEAD + " bytes: "
                    + new String(Arrays.copyOf(buffer, 80), StandardCharsets.ISO_8859_1));
        }
        int read = in.read(buffer, end, buffer.length - end);
        if (read < 0) {
            throw new IOException("the server closed the connection");
        }
        end += read;
    }

    /** The status code of a response head ("HTTP/1.1 200 OK..."). */
    static int status(String head) throws IOException {
        if (head.startsWith("HTTP/1.") && head.length() >= 12 && head.charAt(8) == ' ') {
            try {
                return Integer.parseInt(head.substring(9, 12));
            } catch (NumberFormatException e) {
                // fall through
            }
        }
        throw new IOException("not an HTTP/1.x response: " + head.lines().findFirst().orElse(""));
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
