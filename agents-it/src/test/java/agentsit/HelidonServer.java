package agentsit;

import io.helidon.webserver.WebServer;

/**
 * A Helidon SE 4 server on 127.0.0.1, an ephemeral port. Helidon 4 runs each request on a new
 * virtual thread by default. Every GET answers {@link ServedAnswer#of};
 * it serves until its standard input ends ({@link ServedAnswer#serveUntilInputEnds}).
 */
public final class HelidonServer {
    private HelidonServer() {
    }

    public static void main(String[] args) throws Exception {
        WebServer server = WebServer.builder()
                .host("127.0.0.1")
                .port(0)
                .routing(routing -> routing.get("/*", (request, response) ->
                        response.send(ServedAnswer.of(request.path().path()))))
                .build()
                .start();
        ServedAnswer.serveUntilInputEnds(server.port());
    }
}
