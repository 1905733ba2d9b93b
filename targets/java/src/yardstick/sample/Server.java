package yardstick.sample;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The service's one handler: routes as the Go sample's http.ServeMux does
 * (same paths, methods, 404 and 405 bodies) and answers exactly what its
 * handlers answer. Every response carries Content-Length.
 */
final class Server implements HttpHandler {

    private final Config cfg;
    private final AccessLog accessLog; // null when off
    // the remembered bodies of the static fault, null until the first 200
    private final AtomicReference<byte[]> staticStrings = new AtomicReference<>();
    private final AtomicReference<byte[]> staticGenerated = new AtomicReference<>();

    Server(Config cfg, AccessLog accessLog) {
        this.cfg = cfg;
        this.accessLog = accessLog;
    }

    /** A request's access-log entry, written once its status and size are known. */
    private static final class Reply {
        Instant start;
        long t0;
        byte[] rawPath;
        int status;
        long bytes;
        boolean logged;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        Reply reply = new Reply();
        if (accessLog != null) {
            reply.start = Instant.now();
            reply.t0 = System.nanoTime();
        }
        reply.rawPath = rawPath(ex);
        try {
            route(ex, reply.rawPath, reply);
        } catch (IOException e) {
            // the client went away; nothing to answer
        } catch (RuntimeException e) {
            System.err.println("sample-jvm: " + ex.getRequestMethod() + " " + ex.getRequestURI() + ": " + e);
            if (reply.status == 0) {
                try {
                    send(ex, reply, Shared.error(500, "internal error"));
                } catch (IOException ignored) {
                    // as above
                }
            }
        } finally {
            log(ex, reply); // when no response was sent (Go logs those as 200, 0 bytes)
            ex.close();
        }
    }

    /**
     * Writes the access-log line, once. send() calls it just before the
     * response goes to the socket: the Go sample logs when its handler
     * returns, before net/http flushes the (buffered) response, so dur_us
     * covers the same work on both sides and a client that waits for each
     * response sees its requests logged in order.
     */
    private void log(HttpExchange ex, Reply reply) {
        if (accessLog == null || reply.logged) {
            return;
        }
        reply.logged = true;
        long dur = (System.nanoTime() - reply.t0) / 1000;
        accessLog.log(reply.start.getEpochSecond(), reply.start.getNano(), ex.getRequestMethod(),
                Shared.unescape(reply.rawPath), reply.status == 0 ? 200 : reply.status, reply.bytes, dur);
    }

    /** The request's escaped path as bytes (the JDK hands request-line bytes over as ISO-8859-1 chars). */
    private static byte[] rawPath(HttpExchange ex) {
        String p = ex.getRequestURI().getRawPath();
        if (p == null) {
            p = "";
        }
        byte[] b = new byte[p.length()];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) p.charAt(i);
        }
        return b;
    }

    private static boolean is(byte[] path, String s) {
        if (path.length != s.length()) {
            return false;
        }
        for (int i = 0; i < path.length; i++) {
            if (path[i] != s.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    /** The wildcard of prefix{x}: the rest of path after prefix when it is one non-empty segment, else null. */
    private static byte[] segment(byte[] path, String prefix) {
        if (path.length <= prefix.length()) {
            return null;
        }
        for (int i = 0; i < prefix.length(); i++) {
            if (path[i] != prefix.charAt(i)) {
                return null;
            }
        }
        for (int i = prefix.length(); i < path.length; i++) {
            if (path[i] == '/') {
                return null;
            }
        }
        return Shared.unescape(Arrays.copyOfRange(path, prefix.length(), path.length));
    }

    private void route(HttpExchange ex, byte[] path, Reply reply) throws IOException {
        String method = ex.getRequestMethod();
        boolean get = method.equals("GET") || method.equals("HEAD");
        byte[] arg;
        if (is(path, "/health") || is(path, "/ready")) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            send(ex, reply, Shared.UP);
        } else if (is(path, "/hello")) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            send(ex, reply, Shared.HELLO);
        } else if (is(path, "/api/json")) {
            if (!method.equals("POST")) {
                notAllowed(ex, reply, "POST");
                return;
            }
            json(ex, reply);
        } else if ((arg = segment(path, "/api/strings/")) != null) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            strings(ex, reply, arg);
        } else if ((arg = segment(path, "/api/generated/")) != null) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            generated(ex, reply, arg);
        } else if ((arg = segment(path, "/api/sleep/")) != null) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            sleep(ex, reply, arg);
        } else {
            Headers h = ex.getResponseHeaders();
            h.set("X-Content-Type-Options", "nosniff");
            send(ex, reply, Shared.NOT_FOUND);
        }
    }

    private void notAllowed(HttpExchange ex, Reply reply, String allow) throws IOException {
        Headers h = ex.getResponseHeaders();
        h.set("Allow", allow);
        h.set("X-Content-Type-Options", "nosniff");
        send(ex, reply, Shared.NOT_ALLOWED);
    }

    /** Sends status and body with an exact Content-Length (also on HEAD, as Go does). */
    private void send(HttpExchange ex, Reply reply, Shared.Answer a) throws IOException {
        int status = a.status();
        byte[] body = a.body();
        reply.status = status;
        reply.bytes = body.length;
        log(ex, reply);
        Headers h = ex.getResponseHeaders();
        h.set("Content-Type", a.contentType());
        if (cfg.faults.close) {
            // the close fault: JDK 17's ExchangeImpl.sendResponseHeaders marks
            // the exchange close when the handler sets this header, and
            // ServerImpl closes the connection once the response is written
            h.set("Connection", "close");
        }
        if (ex.getRequestMethod().equals("HEAD")) {
            // the JDK sends no length on HEAD unless told; -1 means no body
            h.set("Content-Length", Integer.toString(body.length));
            ex.sendResponseHeaders(status, -1);
            return;
        }
        ex.sendResponseHeaders(status, body.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(body);
        }
    }

    /**
     * The static fault: sends slot's body and returns true when the fault is
     * on and slot holds one.
     */
    private boolean sendStatic(HttpExchange ex, Reply reply, AtomicReference<byte[]> slot) throws IOException {
        if (!cfg.faults.staticResponse) {
            return false;
        }
        byte[] b = slot.get();
        if (b == null) {
            return false;
        }
        send(ex, reply, new Shared.Answer(200, Shared.JSON, b));
        return true;
    }

    /**
     * The answer to send for a computed answer a: a, unless the static
     * fault is on, a is a 200 and another request has stored its body first
     * (then that one).
     */
    private Shared.Answer remember(AtomicReference<byte[]> slot, Shared.Answer a) {
        if (!cfg.faults.staticResponse || a.status() != 200 || slot.compareAndSet(null, a.body())) {
            return a;
        }
        return new Shared.Answer(200, Shared.JSON, slot.get());
    }

    private void strings(HttpExchange ex, Reply reply, byte[] value) throws IOException {
        if (!sendStatic(ex, reply, staticStrings)) {
            send(ex, reply, remember(staticStrings, Shared.strings(value, cfg.workFactor)));
        }
    }

    private void generated(HttpExchange ex, Reply reply, byte[] arg) throws IOException {
        if (!sendStatic(ex, reply, staticGenerated)) {
            send(ex, reply, remember(staticGenerated, Shared.generated(Shared.latin1(arg), cfg.workFactor)));
        }
    }

    private void json(HttpExchange ex, Reply reply) throws IOException {
        send(ex, reply, Shared.json(Shared.readBody(ex.getRequestBody(), Shared.MAX_JSON_BODY)));
    }

    private void sleep(HttpExchange ex, Reply reply, byte[] arg) throws IOException {
        long ms = Shared.sleepMillis(Shared.latin1(arg));
        if (ms < 0) {
            send(ex, reply, Shared.badSleep());
            return;
        }
        // a blocking dependency: the worker thread waits, as a thread-per-request
        // server waits on a downstream call
        if (Shared.sleep(ms)) {
            send(ex, reply, Shared.slept(ms));
        }
    }
}
