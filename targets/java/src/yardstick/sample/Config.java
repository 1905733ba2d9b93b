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
 * bytes, more worker threads than declared, a static cached response, a
 * slow handler) belong in {@link Faults}, so that a clean server is a
 * default {@code Faults}; a later change adds them there and to
 * {@link #parse}.
 */
final class Config {
    static final int MAX_WORK_FACTOR = 1_000_000;

    int port = 8080;
    String accessLog = "";
    boolean nodelay = true;
    int workFactor = 10;
    int workers;
    Faults faults = new Faults();

    /** Deliberate deviations from a fair server; none exist yet. */
    static final class Faults {
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
                    if (value == null && i + 1 < args.size() && parseBool(args.get(i + 1)) != null) {
                        value = args.get(++i);
                    }
                    if (value == null) {
                        c.nodelay = true;
                    } else {
                        Boolean b = parseBool(value);
                        if (b == null) {
                            throw new UsageException("invalid boolean value \"" + value + "\" for --nodelay", false);
                        }
                        c.nodelay = b;
                    }
                    break;
                case "port":
                case "access-log":
                case "work-factor":
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
                        if (name.equals("port")) {
                            c.port = n.intValue();
                        } else {
                            c.workFactor = n.intValue();
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
        if (workersProperty == null) {
            c.workers = processors;
        } else {
            Long n = parseInt(workersProperty.trim());
            if (n == null || n < 1 || n > 10_000) {
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
