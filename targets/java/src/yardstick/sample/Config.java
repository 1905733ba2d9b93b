package yardstick.sample;

import java.util.List;
import java.util.Map;

/**
 * The sample service's configuration, from command-line switches with
 * environment variables as defaults (the same names as the Go sample:
 * PORT, ACCESS_LOG, TCP_NODELAY, WORK_FACTOR) and the worker count from the
 * system property {@code sample.workers}.
 *
 * <p>Fault-injection switches for the fairness checks (extra access-log
 * bytes, more worker threads than declared, a static cached response,
 * closed connections) are in {@link Faults}, so that a clean server is a
 * default {@code Faults}.
 */
final class Config {
    static final int MAX_WORK_FACTOR = 1_000_000;
    static final int MAX_LOG_PAD = 1 << 20;
    static final int MAX_WORKERS = 10_000;

    int port = 8080;
    String accessLog = "";
    boolean nodelay = true;
    int workFactor = 10;
    int workers;
    Faults faults = new Faults();

    /**
     * Deliberate deviations from a fair server, each tripping one of
     * yardstick's measured fairness checks (the server without it is the
     * fair twin). The defaults are the fair server.
     */
    static final class Faults {
        /**
         * --fault-log-pad N: every access-log line gets exactly N more bytes,
         * a trailing {@code ,"pad":"xxx"} field when N is 9 or more, else N
         * spaces before the closing brace (check log_bytes).
         */
        int logPad;
        /**
         * --fault-extra-workers N: the pool has N more sample-worker-* threads
         * than sample.workers declares, all prestarted (check event_loops).
         */
        int extraWorkers;
        /**
         * --fault-static: /api/strings/{value} and /api/generated/{size} each
         * remember the body of their first 200 and send it for every later
         * request, whatever the parameter (check response_varies).
         */
        boolean staticResponse;
        /**
         * --fault-close: every response has Connection: close, and the JDK's
         * server closes the connection after it (check littles_law).
         */
        boolean close;

        boolean any() {
            return logPad != 0 || extraWorkers != 0 || staticResponse || close;
        }

        @Override
        public String toString() {
            return "log pad " + logPad + ", extra workers " + extraWorkers + ", static " + staticResponse
                    + ", close " + close;
        }
    }

    /** Thrown for a bad switch; the message is shown as is. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        final boolean help;

        UsageException(String msg, boolean help) {
            super(msg);
            this.help = help;
        }
    }

    static final String USAGE = String.join("\n",
            "usage: java [-Dsample.workers=N] -jar sample-jvm.jar [switches]",
            "  --port N            TCP port on 127.0.0.1, 0 picks a free one [$PORT, default 8080]",
            "  --access-log FILE   JSON access log, one line per request; empty disables it [$ACCESS_LOG]",
            "  --nodelay BOOL      set TCP_NODELAY on accepted connections [$TCP_NODELAY, default true]",
            "  --work-factor N     times the string endpoints repeat their work, 1.."
                    + MAX_WORK_FACTOR + " [$WORK_FACTOR, default 10]",
            "  -Dsample.workers=N  worker threads sample-worker-1..N [default: available processors]",
            "fault injection (each makes the server unfair on purpose; default off):",
            "  --fault-log-pad N        add N bytes to every access-log line, 0.." + MAX_LOG_PAD + " [$FAULT_LOG_PAD]",
            "  --fault-extra-workers N  run N more sample-worker threads than sample.workers declares [$FAULT_EXTRA_WORKERS]",
            "  --fault-static           /api/strings and /api/generated repeat their first answer [$FAULT_STATIC]",
            "  --fault-close            Connection: close on every response [$FAULT_CLOSE]",
            "");

    /**
     * Parses switches in the forms the Go flag package accepts ({@code -name
     * value}, {@code --name value}, {@code --name=value}; a bare
     * {@code --nodelay} means true) plus {@code --nodelay true|false}.
     */
    static Config parse(List<String> args, Map<String, String> env, String workersProperty, int processors)
            throws UsageException {
        Config c = new Config();
        c.port = envInt(env, "PORT", c.port);
        c.accessLog = env.getOrDefault("ACCESS_LOG", c.accessLog);
        c.nodelay = envBool(env, "TCP_NODELAY", c.nodelay);
        c.workFactor = envInt(env, "WORK_FACTOR", c.workFactor);
        c.faults.logPad = envInt(env, "FAULT_LOG_PAD", c.faults.logPad);
        c.faults.extraWorkers = envInt(env, "FAULT_EXTRA_WORKERS", c.faults.extraWorkers);
        c.faults.staticResponse = envBool(env, "FAULT_STATIC", c.faults.staticResponse);
        c.faults.close = envBool(env, "FAULT_CLOSE", c.faults.close);

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
            switch (name) {
                case "h":
                case "help":
                    throw new UsageException("", true);
                case "nodelay":
                case "fault-static":
                case "fault-close": {
                    if (value == null && i + 1 < args.size() && parseBool(args.get(i + 1)) != null) {
                        value = args.get(++i);
                    }
                    boolean on = true;
                    if (value != null) {
                        Boolean b = parseBool(value);
                        if (b == null) {
                            throw new UsageException("invalid boolean value \"" + value + "\" for --" + name, false);
                        }
                        on = b;
                    }
                    if (name.equals("nodelay")) {
                        c.nodelay = on;
                    } else if (name.equals("fault-static")) {
                        c.faults.staticResponse = on;
                    } else {
                        c.faults.close = on;
                    }
                    break;
                }
                case "port":
                case "access-log":
                case "work-factor":
                case "fault-log-pad":
                case "fault-extra-workers":
                    if (value == null) {
                        if (i + 1 >= args.size()) {
                            throw new UsageException("switch needs an argument: --" + name, false);
                        }
                        value = args.get(++i);
                    }
                    if (name.equals("access-log")) {
                        c.accessLog = value;
                    } else {
                        Long n = parseInt(value);
                        if (n == null || n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
                            throw new UsageException("invalid value \"" + value + "\" for --" + name, false);
                        }
                        switch (name) {
                            case "port":
                                c.port = n.intValue();
                                break;
                            case "work-factor":
                                c.workFactor = n.intValue();
                                break;
                            case "fault-log-pad":
                                c.faults.logPad = n.intValue();
                                break;
                            default:
                                c.faults.extraWorkers = n.intValue();
                                break;
                        }
                    }
                    break;
                default:
                    throw new UsageException("unknown switch: " + a, false);
            }
        }
        if (c.workFactor < 1 || c.workFactor > MAX_WORK_FACTOR) {
            throw new UsageException("work factor " + c.workFactor + ": want 1.." + MAX_WORK_FACTOR, false);
        }
        if (c.port < 0 || c.port > 65535) {
            throw new UsageException("port " + c.port + ": want 0..65535", false);
        }
        if (c.faults.logPad < 0 || c.faults.logPad > MAX_LOG_PAD) {
            throw new UsageException("fault log pad " + c.faults.logPad + ": want 0.." + MAX_LOG_PAD, false);
        }
        if (c.faults.extraWorkers < 0 || c.faults.extraWorkers > MAX_WORKERS) {
            throw new UsageException("fault extra workers " + c.faults.extraWorkers + ": want 0.." + MAX_WORKERS, false);
        }
        if (workersProperty == null) {
            c.workers = processors;
        } else {
            Long n = parseInt(workersProperty.trim());
            if (n == null || n < 1 || n > MAX_WORKERS) {
                throw new UsageException("sample.workers \"" + workersProperty + "\": want 1..10000", false);
            }
            c.workers = n.intValue();
        }
        return c;
    }

    /** Like Go's strconv.Atoi within long range: optional sign, ASCII digits only. */
    static Long parseInt(String s) {
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
                return null; // out of range, as Atoi says
            }
            v = v * 10 + (ch - '0');
        }
        return neg ? -v : v;
    }

    /** Go's strconv.ParseBool; null when s is none of its spellings. */
    static Boolean parseBool(String s) {
        switch (s) {
            case "1": case "t": case "T": case "TRUE": case "true": case "True":
                return Boolean.TRUE;
            case "0": case "f": case "F": case "FALSE": case "false": case "False":
                return Boolean.FALSE;
            default:
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
