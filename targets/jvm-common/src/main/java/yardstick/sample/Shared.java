package yardstick.sample;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples' endpoint work, opened to every JVM target: the JVM sample
 * (targets/java) and the framework targets (targets/helidon, targets/vertx,
 * targets/quarkus) answer with it, so the string work, the generated text,
 * the JSON binding and the access-log line are the same code, byte for byte,
 * in every JVM target and the Go sample's twin: only the HTTP server, the
 * routing and the threads differ. This class only adapts: it answers a
 * request's decoded parameters with a status, a content type and a body,
 * and parses the switches every JVM target takes.
 */
public final class Shared {
    private Shared() {
    }

    /** Largest {size} of /api/generated/{size}, as in the samples. */
    public static final int MAX_GENERATED_SIZE = 1 << 20;
    /** Largest {ms} of /api/sleep/{ms}. */
    public static final int MAX_SLEEP_MS = 60_000;
    /** Largest body /api/json reads; a longer one gets 400. */
    public static final int MAX_JSON_BODY = 64 << 10;
    /** The JSON content type of every JSON answer. */
    public static final String JSON = "application/json";
    /** The text content type of /hello and the 404/405 bodies (Go's). */
    public static final String TEXT = "text/plain; charset=utf-8";

    /** An answer: status, content type and the exact body bytes. */
    public record Answer(int status, String contentType, byte[] body) {
    }

    /** GET /health and /ready. */
    public static final Answer UP = new Answer(200, JSON, ascii("{\"status\":\"UP\"}"));
    /** GET /hello. */
    public static final Answer HELLO = new Answer(200, TEXT, ascii("Hello, World!"));
    /** An unknown path, as Go's ServeMux answers it. */
    public static final Answer NOT_FOUND = new Answer(404, TEXT, ascii("404 page not found\n"));
    /** A known path with a method it does not take (the caller adds Allow). */
    public static final Answer NOT_ALLOWED = new Answer(405, TEXT, ascii("Method Not Allowed\n"));

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** {"error":msg} with status. */
    public static Answer error(int status, String msg) {
        byte[] body = new Json.Out(msg.length() + 16).raw("{\"error\":").str(msg.getBytes(StandardCharsets.UTF_8))
                .raw("}").bytes();
        return new Answer(status, JSON, body);
    }

    /**
     * GET /api/strings/{value}: value is the percent-decoded path segment as
     * bytes (not a Java string: an invalid UTF-8 byte must stay one byte).
     */
    public static Answer strings(byte[] value, int workFactor) {
        if (value.length == 0) {
            return error(400, "empty value");
        }
        return new Answer(200, JSON, Work.doWork(value, workFactor).toJson());
    }

    /** GET /api/generated/{size}: size is the path segment as sent. */
    public static Answer generated(String size, int workFactor) {
        Long n = parseInt(size);
        if (n == null || n < 0 || n > MAX_GENERATED_SIZE) {
            return error(400, "size must be an integer from 0 to " + MAX_GENERATED_SIZE);
        }
        Work.Result res = Work.doWork(Work.generatedInput(n.intValue()), workFactor);
        // summarised, not echoed: the response stays small whatever the size
        res.upper = null;
        res.lower = null;
        res.reverse = null;
        return new Answer(200, JSON, res.toJson());
    }

    /** POST /api/json: body holds at most MAX_JSON_BODY bytes, or is null when the request's was longer. */
    public static Answer json(byte[] body) {
        if (body == null) {
            return error(400, "bad JSON document: http: request body too large");
        }
        Document d;
        try {
            d = Document.parse(body);
        } catch (Json.Error e) {
            return error(400, "bad JSON document: " + e.getMessage());
        } catch (Document.TrailingDataException e) {
            return error(400, e.getMessage());
        }
        String invalid = d.validate();
        if (!invalid.isEmpty()) {
            return error(422, invalid);
        }
        return new Answer(200, JSON, d.toJson());
    }

    /** The milliseconds of /api/sleep/{ms}, or -1 when ms is not an integer in 0..MAX_SLEEP_MS. */
    public static long sleepMillis(String ms) {
        Long n = parseInt(ms);
        return n == null || n < 0 || n > MAX_SLEEP_MS ? -1 : n;
    }

    /** The answer to /api/sleep/{ms} when sleepMillis said -1. */
    public static Answer badSleep() {
        return error(400, "ms must be an integer from 0 to " + MAX_SLEEP_MS);
    }

    /** The answer to /api/sleep/{ms} once the wait is over. */
    public static Answer slept(long ms) {
        return new Answer(200, JSON, ascii("{\"slept_ms\":" + ms + "}"));
    }

    /**
     * The blocking dependency of /api/sleep/{ms}: sleeps ms milliseconds on
     * the calling thread and returns true, or false when interrupted (the
     * interrupt is kept).
     */
    public static boolean sleep(long ms) {
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** At most max bytes of in; null when it holds more. */
    public static byte[] readBody(InputStream in, int max) throws IOException {
        byte[] buf = new byte[Math.min(max + 1, 1024)];
        int n = 0;
        while (true) {
            if (n == buf.length) {
                if (buf.length > max) {
                    return null;
                }
                buf = Arrays.copyOf(buf, Math.min(max + 1, buf.length * 2));
            }
            int r = in.read(buf, n, buf.length - n);
            if (r < 0) {
                return Arrays.copyOf(buf, n);
            }
            n += r;
        }
    }

    /** The bytes of s, a request-line string in which every char is one byte (ASCII or ISO-8859-1). */
    public static byte[] latin1(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** The string of b, one char per byte (ISO-8859-1): a decoded path segment as the parsers here take it. */
    public static String latin1(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Percent-decodes s; a malformed escape stays as it is. */
    public static byte[] unescape(byte[] s) {
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
        return Arrays.copyOf(out, n);
    }

    private static int hex(byte c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    /** Go's strconv.Atoi within long range: optional sign, ASCII digits only; null otherwise. */
    public static Long parseInt(String s) {
        int i = 0;
        boolean neg = false;
        if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
            neg = s.charAt(0) == '-';
            i = 1;
        }
        if (i == s.length()) {
            return null;
        }
        long v = 0;
        for (; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < '0' || ch > '9') {
                return null;
            }
            if (v > (Long.MAX_VALUE - (ch - '0')) / 10) {
                return null;
            }
            v = v * 10 + (ch - '0');
        }
        return neg ? -v : v;
    }

    /** Go's strconv.ParseBool; null when s is none of its spellings. */
    public static Boolean parseBool(String s) {
        switch (s) {
            case "1": case "t": case "T": case "TRUE": case "true": case "True":
                return Boolean.TRUE;
            case "0": case "f": case "F": case "FALSE": case "false": case "False":
                return Boolean.FALSE;
            default:
                return null;
        }
    }

    /**
     * The samples' JSON access log: one line per request,
     * {"ts":...,"method":...,"path":...,"status":...,"bytes":...,"dur_us":...},
     * buffered, flushed every second and on {@link #close}.
     */
    public static final class RequestLog implements AutoCloseable {
        private final AccessLog log;

        /** Opens (appends to) the log at path. */
        public RequestLog(String path) throws IOException {
            log = new AccessLog(path);
        }

        /**
         * The log at path, null when path is empty (the log is off); when it
         * cannot be opened, says why on stderr after prog and exits 2.
         */
        public static RequestLog openOrExit(String prog, String path) {
            if (path.isEmpty()) {
                return null;
            }
            try {
                return new RequestLog(path);
            } catch (IOException e) {
                System.err.println(prog + ": access log: " + e.getMessage());
                System.exit(2);
                return null;
            }
        }

        /**
         * Logs one request that started at start (wall clock) and startNanos
         * (System.nanoTime); rawPath is the escaped path as sent, logged
         * decoded (Go's r.URL.Path); bytes is the body's length.
         */
        public void log(Instant start, long startNanos, String method, byte[] rawPath, int status, long bytes) {
            long dur = (System.nanoTime() - startNanos) / 1000;
            log.log(start.getEpochSecond(), start.getNano(), method, unescape(rawPath), status, bytes, dur);
        }

        @Override
        public void close() {
            log.close();
        }
    }

    /** Thrown for a bad switch; the message is shown as is. */
    public static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        /** True for -h and --help: print the usage and exit 0. */
        public final boolean help;

        UsageException(String msg, boolean help) {
            super(msg);
            this.help = help;
        }
    }

    /**
     * An integer switch of one target (a thread count, a fault's size),
     * with its environment variable and range.
     */
    public record IntSwitch(String name, String env, int def, int min, int max, String help) {
    }

    /**
     * A boolean switch of one target, with its environment variable: a bare
     * {@code --name} means true, as a bare {@code --nodelay} does.
     */
    public record BoolSwitch(String name, String env, boolean def) {
    }

    /**
     * The switches every JVM target takes, each defaulting to an
     * environment variable (the samples' names), plus the target's own
     * integer and boolean switches.
     */
    public static final class Options {
        /** --port N [$PORT, default 8080]: the TCP port on 127.0.0.1; 0 picks a free one. */
        public int port = 8080;
        /** --access-log FILE [$ACCESS_LOG]: the JSON access log; empty is off. */
        public String accessLog = "";
        /** --nodelay BOOL [$TCP_NODELAY, default true]: TCP_NODELAY on accepted connections. */
        public boolean nodelay = true;
        /** --work-factor N [$WORK_FACTOR, default 10]: times the string endpoints repeat their work. */
        public int workFactor = 10;
        private final Map<String, Integer> ints = new LinkedHashMap<>();
        private final Map<String, Boolean> bools = new LinkedHashMap<>();

        /** The value of the target's integer switch name. */
        public int get(String name) {
            Integer v = ints.get(name);
            if (v == null) {
                throw new IllegalArgumentException("no switch --" + name);
            }
            return v;
        }

        /** The value of the target's boolean switch name. */
        public boolean flag(String name) {
            Boolean v = bools.get(name);
            if (v == null) {
                throw new IllegalArgumentException("no switch --" + name);
            }
            return v;
        }

        /** The usage text of a target started as launch with the common and extra switches. */
        public static String usage(String launch, List<IntSwitch> extra) {
            StringBuilder b = new StringBuilder();
            b.append("usage: ").append(launch).append(" [switches]\n");
            b.append("  --port N            TCP port on 127.0.0.1, 0 picks a free one [$PORT, default 8080]\n");
            b.append("  --access-log FILE   JSON access log, one line per request; empty disables it [$ACCESS_LOG]\n");
            b.append("  --nodelay BOOL      set TCP_NODELAY on accepted connections [$TCP_NODELAY, default true]\n");
            b.append("  --work-factor N     times the string endpoints repeat their work, 1..1000000"
                    + " [$WORK_FACTOR, default 10]\n");
            for (IntSwitch s : extra) {
                String left = "  --" + s.name() + " N";
                b.append(left).append(" ".repeat(Math.max(1, 22 - left.length()))).append(s.help())
                        .append(", ").append(s.min()).append("..").append(s.max())
                        .append(" [$").append(s.env()).append(", default ").append(s.def()).append("]\n");
            }
            return b.toString();
        }

        /**
         * Parses switches in the forms the Go flag package accepts
         * ({@code -name value}, {@code --name value}, {@code --name=value};
         * a bare {@code --nodelay} means true).
         */
        public static Options parse(List<String> args, Map<String, String> env, List<IntSwitch> extra)
                throws UsageException {
            return parse(args, env, extra, List.of());
        }

        /** {@link #parse(List, Map, List)} with the target's boolean switches too. */
        public static Options parse(List<String> args, Map<String, String> env, List<IntSwitch> extra,
                List<BoolSwitch> flags) throws UsageException {
            Options o = new Options();
            o.bools.put("nodelay", envBool(env, "TCP_NODELAY", true));
            for (BoolSwitch f : flags) {
                o.bools.put(f.name(), envBool(env, f.env(), f.def()));
            }
            o.port = envInt(env, "PORT", o.port);
            o.accessLog = env.getOrDefault("ACCESS_LOG", o.accessLog);
            o.workFactor = envInt(env, "WORK_FACTOR", o.workFactor);
            Map<String, IntSwitch> byName = new LinkedHashMap<>();
            for (IntSwitch s : extra) {
                byName.put(s.name(), s);
                o.ints.put(s.name(), envInt(env, s.env(), s.def()));
            }
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.equals("--")) {
                    if (i + 1 < args.size()) {
                        throw new UsageException("unexpected arguments " + args.subList(i + 1, args.size()), false);
                    }
                    break;
                }
                if (!a.startsWith("-") || a.equals("-")) {
                    throw new UsageException("unexpected arguments " + args.subList(i, args.size()), false);
                }
                String name = a.startsWith("--") ? a.substring(2) : a.substring(1);
                String value = null;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                }
                if (name.equals("h") || name.equals("help")) {
                    throw new UsageException("", true);
                }
                if (o.bools.containsKey(name)) {
                    if (value == null && i + 1 < args.size() && parseBool(args.get(i + 1)) != null) {
                        value = args.get(++i);
                    }
                    Boolean on = value == null ? Boolean.TRUE : parseBool(value);
                    if (on == null) {
                        throw new UsageException("invalid boolean value \"" + value + "\" for --" + name, false);
                    }
                    o.bools.put(name, on);
                    continue;
                }
                boolean known = name.equals("port") || name.equals("access-log") || name.equals("work-factor")
                        || byName.containsKey(name);
                if (!known) {
                    throw new UsageException("unknown switch: " + a, false);
                }
                if (value == null) {
                    if (i + 1 >= args.size()) {
                        throw new UsageException("switch needs an argument: --" + name, false);
                    }
                    value = args.get(++i);
                }
                if (name.equals("access-log")) {
                    o.accessLog = value;
                    continue;
                }
                Long n = parseInt(value);
                if (n == null || n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                    throw new UsageException("invalid value \"" + value + "\" for --" + name, false);
                }
                switch (name) {
                    case "port" -> o.port = n.intValue();
                    case "work-factor" -> o.workFactor = n.intValue();
                    default -> o.ints.put(name, n.intValue());
                }
            }
            if (o.workFactor < 1 || o.workFactor > 1_000_000) {
                throw new UsageException("work factor " + o.workFactor + ": want 1..1000000", false);
            }
            if (o.port < 0 || o.port > 65535) {
                throw new UsageException("port " + o.port + ": want 0..65535", false);
            }
            for (IntSwitch s : extra) {
                int v = o.ints.get(s.name());
                if (v < s.min() || v > s.max()) {
                    throw new UsageException(s.name().replace('-', ' ') + " " + v + ": want " + s.min() + ".."
                            + s.max(), false);
                }
            }
            o.nodelay = o.bools.get("nodelay");
            return o;
        }

        /**
         * Parses args and the environment, or prints the error and the usage
         * on stderr and exits: 2 for a bad switch, 0 for --help.
         */
        public static Options parseOrExit(String prog, String launch, String[] args, List<IntSwitch> extra) {
            return parseOrExit(prog, usage(launch, extra), args, extra, List.of());
        }

        /**
         * {@link #parseOrExit(String, String, String[], List)} with the
         * target's boolean switches and its own usage text.
         */
        public static Options parseOrExit(String prog, String usage, String[] args, List<IntSwitch> extra,
                List<BoolSwitch> flags) {
            try {
                return parse(List.of(args), System.getenv(), extra, flags);
            } catch (UsageException e) {
                if (e.help) {
                    System.err.print(usage);
                    System.exit(0);
                }
                System.err.println(prog + ": " + e.getMessage());
                System.err.print(usage);
                System.exit(2);
                return null;
            }
        }

        private static int envInt(Map<String, String> env, String name, int def) {
            String v = env.get(name);
            Long n = v == null ? null : parseInt(v);
            return n != null && n >= Integer.MIN_VALUE && n <= Integer.MAX_VALUE ? n.intValue() : def;
        }

        private static boolean envBool(Map<String, String> env, String name, boolean def) {
            String v = env.get(name);
            Boolean b = v == null ? null : parseBool(v);
            return b != null ? b : def;
        }
    }
}
