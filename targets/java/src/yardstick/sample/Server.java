package yardstick.sample;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The service's one handler: routes as the Go sample's http.ServeMux does
 * (same paths, methods, 404 and 405 bodies) and answers exactly what its
 * handlers answer. Every response carries Content-Length.
 */
final class Server implements HttpHandler {
    static final int MAX_GENERATED_SIZE = 1 << 20; // bytes of input /api/generated/{size} will make
    static final int MAX_SLEEP_MS = 60_000;
    static final int MAX_JSON_BODY = 64 << 10;

    private static final byte[] STATUS_UP = ascii("{\"status\":\"UP\"}");
    private static final byte[] HELLO = ascii("Hello, World!");
    private static final byte[] NOT_FOUND = ascii("404 page not found\n");
    private static final byte[] NOT_ALLOWED = ascii("Method Not Allowed\n");
    private static final String JSON = "application/json";
    private static final String TEXT = "text/plain; charset=utf-8";

    private final Config cfg;
    private final AccessLog accessLog; // null when off
    // the remembered bodies of the static fault, null until the first 200
    private final AtomicReference<byte[]> staticStrings = new AtomicReference<>();
    private final AtomicReference<byte[]> staticGenerated = new AtomicReference<>();

    Server(Config cfg, AccessLog accessLog) {
        this.cfg = cfg;
        this.accessLog = accessLog;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
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
                    send(ex, reply, 500, JSON, ascii("{\"error\":\"internal error\"}"));
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
                unescape(reply.rawPath), reply.status == 0 ? 200 : reply.status, reply.bytes, dur);
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

    /** Percent-decodes s (the JDK has already rejected malformed escapes with 400). */
    static byte[] unescape(byte[] s) {
        int pct = 0;
        for (byte c : s) {
            if (c == '%') {
                pct++;
            }
        }
        if (pct == 0) {
            return s;
        }
        byte[] out = new byte[s.length];
        int n = 0;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == '%' && i + 2 < s.length && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
                out[n++] = (byte) (hex(s[i + 1]) << 4 | hex(s[i + 2]));
                i += 2;
            } else {
                out[n++] = s[i];
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    private static int hex(byte c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
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
        return unescape(java.util.Arrays.copyOfRange(path, prefix.length(), path.length));
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
            send(ex, reply, 200, JSON, STATUS_UP);
        } else if (is(path, "/hello")) {
            if (!get) {
                notAllowed(ex, reply, "GET, HEAD");
                return;
            }
            send(ex, reply, 200, TEXT, HELLO);
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
            send(ex, reply, 404, TEXT, NOT_FOUND);
        }
    }

    private void notAllowed(HttpExchange ex, Reply reply, String allow) throws IOException {
        Headers h = ex.getResponseHeaders();
        h.set("Allow", allow);
        h.set("X-Content-Type-Options", "nosniff");
        send(ex, reply, 405, TEXT, NOT_ALLOWED);
    }

    /** Sends status and body with an exact Content-Length (also on HEAD, as Go does). */
    private void send(HttpExchange ex, Reply reply, int status, String contentType, byte[] body)
            throws IOException {
        reply.status = status;
        reply.bytes = body.length;
        log(ex, reply);
        Headers h = ex.getResponseHeaders();
        h.set("Content-Type", contentType);
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

    private void sendError(HttpExchange ex, Reply reply, int status, String msg) throws IOException {
        byte[] body = new Json.Out(msg.length() + 16).raw("{\"error\":").str(msg.getBytes(StandardCharsets.UTF_8))
                .raw("}").bytes();
        send(ex, reply, status, JSON, body);
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
        send(ex, reply, 200, JSON, b);
        return true;
    }

    /**
     * The body to send for a computed 200 body b: b, unless the static fault
     * is on and another request has stored its body first (then that one).
     */
    private byte[] remember(AtomicReference<byte[]> slot, byte[] b) {
        if (!cfg.faults.staticResponse || slot.compareAndSet(null, b)) {
            return b;
        }
        return slot.get();
    }

    private void strings(HttpExchange ex, Reply reply, byte[] value) throws IOException {
        if (sendStatic(ex, reply, staticStrings)) {
            return;
        }
        if (value.length == 0) {
            sendError(ex, reply, 400, "empty value");
            return;
        }
        send(ex, reply, 200, JSON, remember(staticStrings, Work.doWork(value, cfg.workFactor).toJson()));
    }

    private void generated(HttpExchange ex, Reply reply, byte[] arg) throws IOException {
        if (sendStatic(ex, reply, staticGenerated)) {
            return;
        }
        Long size = Config.parseInt(new String(arg, StandardCharsets.ISO_8859_1));
        if (size == null || size < 0 || size > MAX_GENERATED_SIZE) {
            sendError(ex, reply, 400, "size must be an integer from 0 to " + MAX_GENERATED_SIZE);
            return;
        }
        Work.Result res = Work.doWork(Work.generatedInput(size.intValue()), cfg.workFactor);
        // the transformed strings are summarised, not echoed: the response
        // stays small whatever the size
        res.upper = null;
        res.lower = null;
        res.reverse = null;
        send(ex, reply, 200, JSON, remember(staticGenerated, res.toJson()));
    }

    private void json(HttpExchange ex, Reply reply) throws IOException {
        byte[] body = readBody(ex.getRequestBody(), MAX_JSON_BODY);
        if (body == null) {
            sendError(ex, reply, 400, "bad JSON document: http: request body too large");
            return;
        }
        Document d;
        try {
            d = Document.parse(body);
        } catch (Json.Error e) {
            sendError(ex, reply, 400, "bad JSON document: " + e.getMessage());
            return;
        } catch (Document.TrailingDataException e) {
            sendError(ex, reply, 400, e.getMessage());
            return;
        }
        String invalid = d.validate();
        if (!invalid.isEmpty()) {
            sendError(ex, reply, 422, invalid);
            return;
        }
        send(ex, reply, 200, JSON, d.toJson());
    }

    /** At most max bytes of the body; null when it is longer. */
    private static byte[] readBody(InputStream in, int max) throws IOException {
        byte[] buf = new byte[Math.min(max + 1, 1024)];
        int n = 0;
        while (true) {
            if (n == buf.length) {
                if (buf.length > max) {
                    return null;
                }
                buf = java.util.Arrays.copyOf(buf, Math.min(max + 1, buf.length * 2));
            }
            int r = in.read(buf, n, buf.length - n);
            if (r < 0) {
                return java.util.Arrays.copyOf(buf, n);
            }
            n += r;
        }
    }

    private void sleep(HttpExchange ex, Reply reply, byte[] arg) throws IOException {
        Long ms = Config.parseInt(new String(arg, StandardCharsets.ISO_8859_1));
        if (ms == null || ms < 0 || ms > MAX_SLEEP_MS) {
            sendError(ex, reply, 400, "ms must be an integer from 0 to " + MAX_SLEEP_MS);
            return;
        }
        // a blocking dependency: the worker thread waits, as a thread-per-request
        // server waits on a downstream call
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        send(ex, reply, 200, JSON, ascii("{\"slept_ms\":" + ms + "}"));
    }
}
