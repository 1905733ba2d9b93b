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

    static final String USAGE = String.join("\n",
            "usage: java [-Dsample.workers=N] -jar sample-jvm.jar [switches]",
            "  --port N            TCP port on 127.0.0.1, 0 picks a free one [$PORT, default 8080]",
            "  --access-log FILE   JSON access log, one line per request; empty disables it [$ACCESS_LOG]",
            "  --nodelay BOOL      set TCP_NODELAY on accepted connections [$TCP_NODELAY, default true]",
            "  --work-factor N     times the string endpoints repeat their work, 1..1000000 [$WORK_FACTOR, default 10]",
            "  -Dsample.workers=N  worker threads sample-worker-1..N [default: available processors]",
            "fault injection (each makes the server unfair on purpose; default off):",
            "  --fault-log-pad N        add N bytes to every access-log line, 0.." + MAX_LOG_PAD + " [$FAULT_LOG_PAD]",
            "  --fault-extra-workers N  run N more sample-worker threads than sample.workers declares [$FAULT_EXTRA_WORKERS]",
            "  --fault-static           /api/strings and /api/generated repeat their first answer [$FAULT_STATIC]",
            "  --fault-close            Connection: close on every response [$FAULT_CLOSE]",
            "");

    /** The fault switches, after the switches every JVM target takes (Shared.Options). */
    static final List<Shared.IntSwitch> FAULT_SIZES = List.of(
            new Shared.IntSwitch("fault-log-pad", "FAULT_LOG_PAD", 0, 0, MAX_LOG_PAD, "access-log bytes added"),
            new Shared.IntSwitch("fault-extra-workers", "FAULT_EXTRA_WORKERS", 0, 0, MAX_WORKERS, "extra workers"));
    static final List<Shared.BoolSwitch> FAULT_FLAGS = List.of(
            new Shared.BoolSwitch("fault-static", "FAULT_STATIC", false),
            new Shared.BoolSwitch("fault-close", "FAULT_CLOSE", false));

    /**
     * The configuration of the switches o (parsed with FAULT_SIZES and
     * FAULT_FLAGS) and the sample.workers property (null: processors).
     */
    static Config of(Shared.Options o, String workersProperty, int processors) throws Shared.UsageException {
        Config c = new Config();
        c.port = o.port;
        c.accessLog = o.accessLog;
        c.nodelay = o.nodelay;
        c.workFactor = o.workFactor;
        c.faults.logPad = o.get("fault-log-pad");
        c.faults.extraWorkers = o.get("fault-extra-workers");
        c.faults.staticResponse = o.flag("fault-static");
        c.faults.close = o.flag("fault-close");
        if (workersProperty == null) {
            c.workers = processors;
        } else {
            Long n = Shared.parseInt(workersProperty.trim());
            if (n == null || n < 1 || n > MAX_WORKERS) {
                throw new Shared.UsageException("sample.workers \"" + workersProperty + "\": want 1..10000", false);
            }
            c.workers = n.intValue();
        }
        return c;
    }

    /**
     * Parses switches and the environment as every JVM target does
     * (Shared.Options: the Go flag package's forms), plus the fault switches.
     */
    static Config parse(List<String> args, Map<String, String> env, String workersProperty, int processors)
            throws Shared.UsageException {
        return of(Shared.Options.parse(args, env, FAULT_SIZES, FAULT_FLAGS), workersProperty, processors);
    }
}
