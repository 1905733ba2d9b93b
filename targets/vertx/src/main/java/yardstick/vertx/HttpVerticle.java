package yardstick.vertx;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import yardstick.sample.Heartbeat;
import yardstick.sample.Shared;
import yardstick.sample.Shared.Answer;

/**
 * One HTTP server with the sample's routes, on this verticle's event loop.
 * Every answer goes through {@link #send}, which writes the access-log line
 * just before the response, as the samples do.
 */
final class HttpVerticle extends VerticleBase {
    private static final String START = "yardstick.start";

    private final HttpServerOptions options;
    private final int workFactor;
    private final Shared.RequestLog log; // null when off
    private volatile HttpServer server;

    HttpVerticle(HttpServerOptions options, int workFactor, Shared.RequestLog log) {
        this.options = options;
        this.workFactor = workFactor;
        this.log = log;
    }

    /** The port the server listens on, once started. */
    int port() {
        return server.actualPort();
    }

    @Override
    public Future<?> start() {
        Router router = Router.router(vertx);
        if (log != null) {
            router.route().handler(ctx -> {
                ctx.put(START, new Start());
                ctx.next();
            });
        }
        get(router, "/health", ctx -> send(ctx, Shared.UP));
        get(router, "/ready", ctx -> send(ctx, Shared.UP));
        get(router, "/hello", ctx -> send(ctx, Shared.HELLO));
        get(router, "/api/strings/:value", ctx -> send(ctx, Shared.strings(Shared.unescape(lastSegment(ctx)), workFactor)));
        get(router, "/api/generated/:size", ctx -> send(ctx, Shared.generated(latin1(Shared.unescape(lastSegment(ctx))),
                workFactor)));
        get(router, "/api/sleep/:ms", this::sleep);
        get(router, Heartbeat.PATH, this::heartbeat);
        router.post("/api/json").handler(this::json);
        router.route("/api/json").handler(notAllowed("POST"));
        // Go's ServeMux: everything else is 404 page not found
        router.route().last().handler(ctx -> {
            ctx.response().putHeader("X-Content-Type-Options", "nosniff");
            send(ctx, Shared.NOT_FOUND);
        });
        server = vertx.createHttpServer(options).requestHandler(router);
        return server.listen();
    }

    /** A route for GET and HEAD, then 405 for the other methods on the same path. */
    private static void get(Router router, String path, Handler<RoutingContext> h) {
        router.route(path).method(HttpMethod.GET).method(HttpMethod.HEAD).handler(h);
        router.route(path).handler(notAllowed("GET, HEAD"));
    }

    private static Handler<RoutingContext> notAllowed(String allow) {
        return ctx -> {
            ctx.response().putHeader("Allow", allow).putHeader("X-Content-Type-Options", "nosniff");
            send(ctx, Shared.NOT_ALLOWED);
        };
    }

    /** The blocking dependency call: a worker thread waits, never the event loop. */
    private void sleep(RoutingContext ctx) {
        long ms = Shared.sleepMillis(latin1(Shared.unescape(lastSegment(ctx))));
        if (ms < 0) {
            send(ctx, Shared.badSleep());
            return;
        }
        // ordered=false: independent requests wait in parallel on the worker pool
        // (the default, ordered, would queue every sleep of this event loop behind the one before)
        vertx.executeBlocking(() -> {
            Thread.sleep(ms);
            return ms;
        }, false).onComplete(ar -> {
            if (ar.succeeded()) {
                send(ctx, Shared.slept(ms));
            } else {
                send(ctx, Shared.error(500, "internal error"));
            }
        });
    }

    /**
     * GET /ws/heartbeat: a bad period_ms gets 400 before the upgrade; then
     * the connection's own timer on this event loop pushes the heartbeat
     * ({@link HeartbeatPusher}).
     */
    private void heartbeat(RoutingContext ctx) {
        long period = Heartbeat.periodMillis(Heartbeat.queryValue(ctx.request().query()));
        if (period < 0) {
            send(ctx, Heartbeat.badPeriod());
            return;
        }
        ctx.request().toWebSocket().onComplete(ar -> {
            if (ar.failed()) { // not an upgrade request, or a bad handshake
                if (!ctx.response().ended()) {
                    send(ctx, Shared.error(400, "not a WebSocket upgrade: " + ar.cause().getMessage()));
                }
                return;
            }
            Start s = ctx.get(START);
            if (s != null) {
                s.log.log(s.wall, s.nanos, "GET", Shared.latin1(ctx.request().path()), 101, 0);
            }
            new HeartbeatPusher(vertx, ar.result(), period).start();
        });
    }

    /** Reads at most MAX_JSON_BODY bytes of the body as it streams in; more makes a 400. */
    private void json(RoutingContext ctx) {
        HttpServerRequest req = ctx.request();
        Buffer body = Buffer.buffer(1024);
        boolean[] tooLarge = {false};
        req.handler(chunk -> {
            if (tooLarge[0]) {
                return;
            }
            if (body.length() + chunk.length() > Shared.MAX_JSON_BODY) {
                tooLarge[0] = true;
            } else {
                body.appendBuffer(chunk);
            }
        });
        req.endHandler(v -> send(ctx, Shared.json(tooLarge[0] ? null : body.getBytes())));
        req.exceptionHandler(e -> ctx.fail(e));
        req.resume();
    }

    /** Writes the access-log line (when on), then the answer with an exact Content-Length (also on HEAD). */
    private static void send(RoutingContext ctx, Answer a) {
        Start s = ctx.get(START);
        if (s != null) {
            s.log.log(s.wall, s.nanos, ctx.request().method().name(), Shared.latin1(ctx.request().path()),
                    a.status(), a.body().length);
        }
        ctx.response()
                .setStatusCode(a.status())
                .putHeader("Content-Type", a.contentType())
                .putHeader("Content-Length", Integer.toString(a.body().length))
                .end(Buffer.buffer(a.body()));
    }

    /** When a request arrived, and the log to write it to. */
    private final class Start {
        final Instant wall = Instant.now();
        final long nanos = System.nanoTime();
        final Shared.RequestLog log = HttpVerticle.this.log;
    }

    /** The last path segment as sent (still escaped), as bytes. */
    private static byte[] lastSegment(RoutingContext ctx) {
        String raw = ctx.request().path();
        return Shared.latin1(raw.substring(raw.lastIndexOf('/') + 1));
    }

    private static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
