package yardstick.helidon;

import io.helidon.http.HeaderNames;
import io.helidon.http.Method;
import io.helidon.http.PathMatchers;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.Handler;
import io.helidon.webserver.http.HttpRouting;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import yardstick.sample.Shared;
import yardstick.sample.Shared.Answer;

/**
 * The sample service on Helidon SE 4's WebServer: the same endpoints, bodies
 * and access-log line as the samples (targets/java, targets/go), in Helidon
 * SE's functional style (HttpRouting with plain handlers, no injection).
 * Helidon 4 runs every connection and request on a virtual thread, so the
 * blocking /api/sleep is plain Thread.sleep: the virtual thread unmounts from
 * its carrier while it waits.
 */
public final class Main {
    private Main() {
    }

    static final String PROG = "helidon";

    public static void main(String[] args) {
        Shared.Options o = Shared.Options.parseOrExit(PROG,
                "java [-Djdk.virtualThreadScheduler.parallelism=N] -jar helidon.jar", args, List.of());
        Shared.RequestLog log = Shared.RequestLog.openOrExit(PROG, o.accessLog);
        Routes routes = new Routes(o.workFactor, log);
        WebServer server;
        try {
            server = WebServer.builder()
                    .host("127.0.0.1")
                    .port(o.port)
                    .backlog(1024)
                    // Helidon's default is Nagle on: the ~40 ms delayed-ACK floor on keep-alive connections
                    .connectionOptions(s -> s.tcpNoDelay(o.nodelay))
                    .shutdownHook(false) // ours below: stop the server, then flush the access log
                    .shutdownGracePeriod(Duration.ofSeconds(1))
                    .routing(routes::register)
                    .build()
                    .start();
        } catch (RuntimeException e) {
            System.err.println(PROG + ": listen: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (!server.isRunning() || server.port() <= 0) {
            // Helidon logs a failed bind (SEVERE above) and returns a stopped server
            System.err.println(PROG + ": listen: 127.0.0.1:" + o.port + " failed");
            System.exit(2);
        }
        final Shared.RequestLog accessLog = log;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop();
            if (accessLog != null) {
                accessLog.close();
            }
        }, "helidon-shutdown"));
        System.err.println(PROG + " listening on 127.0.0.1:" + server.port() + " (virtual threads, parallelism "
                + parallelism() + ", nodelay " + o.nodelay + ", work factor " + o.workFactor + ")");
    }

    /** The carrier threads the virtual-thread scheduler may run, as the JDK computes it. */
    private static int parallelism() {
        String p = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        return p != null ? Integer.parseInt(p.trim()) : Runtime.getRuntime().availableProcessors();
    }

    /** The routes, each answered through {@link #send} (which writes the access-log line). */
    static final class Routes {
        private final int workFactor;
        private final Shared.RequestLog log; // null when off

        Routes(int workFactor, Shared.RequestLog log) {
            this.workFactor = workFactor;
            this.log = log;
        }

        void register(HttpRouting.Builder r) {
            if (log != null) {
                r.addFilter((chain, req, res) -> {
                    req.context().register(Start.class, new Start());
                    chain.proceed();
                });
            }
            get(r, "/health", (req, res) -> send(req, res, Shared.UP));
            get(r, "/ready", (req, res) -> send(req, res, Shared.UP));
            get(r, "/hello", (req, res) -> send(req, res, Shared.HELLO));
            get(r, "/api/strings/{value}", (req, res) ->
                    send(req, res, Shared.strings(Shared.unescape(lastSegment(req)), workFactor)));
            get(r, "/api/generated/{size}", (req, res) ->
                    send(req, res, Shared.generated(Shared.latin1(Shared.unescape(lastSegment(req))), workFactor)));
            get(r, "/api/sleep/{ms}", this::sleep);
            r.post("/api/json", (req, res) -> send(req, res, Shared.json(readBody(req))));
            r.any("/api/json", notAllowed("POST"));
            // Go's ServeMux: everything else is 404 page not found
            r.any((req, res) -> {
                res.header("X-Content-Type-Options", "nosniff");
                send(req, res, Shared.NOT_FOUND);
            });
        }

        /** A GET route that also answers HEAD, and 405 for other methods on the same path. */
        private void get(HttpRouting.Builder r, String path, Handler h) {
            r.route(Method.predicate(Method.GET, Method.HEAD), PathMatchers.create(path), h);
            r.route(m -> true, PathMatchers.create(path), notAllowed("GET, HEAD"));
        }

        private Handler notAllowed(String allow) {
            return (req, res) -> {
                res.header("Allow", allow);
                res.header("X-Content-Type-Options", "nosniff");
                send(req, res, Shared.NOT_ALLOWED);
            };
        }

        private void sleep(ServerRequest req, ServerResponse res) {
            long ms = Shared.sleepMillis(Shared.latin1(Shared.unescape(lastSegment(req))));
            if (ms < 0) {
                send(req, res, Shared.badSleep());
                return;
            }
            // a blocking dependency call: the request's virtual thread waits
            if (Shared.sleep(ms)) {
                send(req, res, Shared.slept(ms));
            }
        }

        /** Writes the access-log line, then the answer with an exact Content-Length (also on HEAD). */
        private void send(ServerRequest req, ServerResponse res, Answer a) {
            if (log != null) {
                Start s = req.context().get(Start.class, Start.class).orElseGet(() -> new Start());
                log.log(s.wall, s.nanos, req.prologue().method().text(), Shared.latin1(req.path().rawPath()),
                        a.status(), a.body().length);
            }
            res.status(a.status());
            res.header(HeaderNames.CONTENT_TYPE, a.contentType());
            res.contentLength(a.body().length);
            if (req.prologue().method() == Method.HEAD) {
                res.send(); // Helidon writes an entity given on HEAD: the next answer would start with it
                return;
            }
            res.send(a.body());
        }
    }

    /** When a request arrived. */
    static final class Start {
        final Instant wall = Instant.now();
        final long nanos = System.nanoTime();
    }

    /** The last path segment as sent (still escaped), as bytes. */
    private static byte[] lastSegment(ServerRequest req) {
        String raw = req.path().rawPath();
        return Shared.latin1(raw.substring(raw.lastIndexOf('/') + 1));
    }

    /** At most MAX_JSON_BODY bytes of the body; null when it is longer. */
    private static byte[] readBody(ServerRequest req) {
        try (InputStream in = req.content().inputStream()) {
            return Shared.readBody(in, Shared.MAX_JSON_BODY);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
