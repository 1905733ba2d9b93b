package yardstick.quarkus;

import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;
import yardstick.sample.Shared;

/**
 * The sample service on Quarkus 3 in JVM mode with Quarkus REST (RESTEasy
 * Reactive): the same endpoints, bodies and access-log line as the samples
 * (targets/java, targets/go). Main turns the samples' switches into Quarkus
 * configuration (system properties, read when Quarkus starts), runs
 * Quarkus, prints the listening line and waits for SIGTERM.
 */
@QuarkusMain
public final class Main implements QuarkusApplication {
    static final String PROG = "quarkus";

    /** --event-loops N: Vert.x event loops, and as many HTTP server instances (io-threads). */
    static final Shared.IntSwitch EVENT_LOOPS = new Shared.IntSwitch("event-loops", "EVENT_LOOPS",
            2 * Runtime.getRuntime().availableProcessors(), 1, 1024,
            "event-loop threads vert.x-eventloop-thread-0..N-1 (non-blocking endpoints)");
    /** --workers N: the most threads of Quarkus's worker pool, which runs the @Blocking /api/sleep. */
    static final Shared.IntSwitch WORKERS = new Shared.IntSwitch("workers", "WORKERS",
            Math.max(8 * Runtime.getRuntime().availableProcessors(), 200), 1, 10_000,
            "most worker threads executor-thread-N for /api/sleep");

    public static void main(String[] args) {
        Shared.Options o = Shared.Options.parseOrExit(PROG, "java -jar quarkus.jar", args,
                List.of(EVENT_LOOPS, WORKERS));
        int loops = o.get(EVENT_LOOPS.name());
        System.setProperty("quarkus.http.port", Integer.toString(o.port));
        System.setProperty("quarkus.vertx.event-loops-pool-size", Integer.toString(loops));
        System.setProperty("quarkus.http.io-threads", Integer.toString(loops));
        System.setProperty("quarkus.thread-pool.max-threads", Integer.toString(o.get(WORKERS.name())));
        System.setProperty(Settings.WORK_FACTOR, Integer.toString(o.workFactor));
        System.setProperty(Settings.ACCESS_LOG, o.accessLog);
        System.setProperty(Settings.NODELAY, Boolean.toString(o.nodelay));
        Quarkus.run(Main.class, (code, e) -> {
            if (e != null) { // it did not start: a port in use, an access log it cannot open
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                System.err.println(PROG + ": " + e.getMessage() + (root != e ? ": " + root.getMessage() : ""));
                System.exit(2);
            }
            System.exit(code);
        }, args);
    }

    @Override
    public int run(String... args) {
        // with port 0 Quarkus records the port it got in the same property
        int port = ConfigProvider.getConfig().getValue("quarkus.http.port", Integer.class);
        System.err.println(PROG + " listening on 127.0.0.1:" + port + " (event loops "
                + System.getProperty("quarkus.vertx.event-loops-pool-size") + ", workers "
                + System.getProperty("quarkus.thread-pool.max-threads") + ", nodelay "
                + System.getProperty(Settings.NODELAY) + ", work factor " + System.getProperty(Settings.WORK_FACTOR)
                + ")");
        Quarkus.waitForExit();
        return 0;
    }
}
