package yardstick.sample;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * sample-jvm: the JVM sample service yardstick benchmarks, the twin of the Go
 * sample (targets/go) on the JDK's own com.sun.net.httpserver. Requests run
 * on a fixed pool of threads named sample-worker-1..N (N from
 * -Dsample.workers, default the available processors, which honours
 * -XX:ActiveProcessorCount); the JDK's HTTP-Dispatcher thread accepts and
 * selects.
 */
public final class Main {
    private Main() {
    }

    /** The system property the JDK's HttpServer reads TCP_NODELAY from (once, when the server class loads). */
    static final String NODELAY_PROPERTY = "sun.net.httpserver.nodelay";

    public static void main(String[] args) {
        Config cfg;
        try {
            cfg = Config.parse(Arrays.asList(args), System.getenv(), System.getProperty("sample.workers"),
                    Runtime.getRuntime().availableProcessors());
        } catch (Shared.UsageException e) {
            if (e.help) {
                System.err.print(Config.USAGE);
                System.exit(0);
            }
            System.err.println("sample-jvm: " + e.getMessage());
            System.err.print(Config.USAGE);
            System.exit(2);
            return;
        }
        try {
            run(cfg);
        } catch (IOException e) {
            System.err.println("sample-jvm: " + e);
            System.exit(2);
        }
    }

    private static void run(Config cfg) throws IOException {
        // JDK 17's ServerConfig reads this once in its static initialiser,
        // which runs when the first server is created, and defaults to false
        // (Nagle on): it must be set before HttpServer.create.
        System.setProperty(NODELAY_PROPERTY, Boolean.toString(cfg.nodelay));

        AccessLog log = null;
        if (!cfg.accessLog.isEmpty()) {
            try {
                log = new AccessLog(cfg.accessLog, cfg.faults.logPad);
            } catch (IOException e) {
                throw new IOException("access log: " + e.getMessage(), e);
            }
        }
        // the extra-workers fault runs more threads than sample.workers declares
        ThreadPoolExecutor workers = (ThreadPoolExecutor) Executors.newFixedThreadPool(
                cfg.workers + cfg.faults.extraWorkers, workerThreads());
        // all N threads from the start, not one per request until N: the
        // thread count in /proc is then the declared one before any load
        workers.prestartAllCoreThreads();
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), cfg.port), 1024);
        } catch (IOException e) {
            throw new IOException("listen: " + e.getMessage(), e);
        }
        server.createContext("/", new Server(cfg, log));
        server.setExecutor(workers);
        server.start();

        final AccessLog accessLog = log;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.stop(1); // let exchanges in flight finish, for a second at most
            workers.shutdown();
            try {
                workers.awaitTermination(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (accessLog != null) {
                accessLog.close();
            }
        }, "sample-shutdown"));

        InetSocketAddress addr = server.getAddress();
        System.err.println("sample-jvm listening on " + addr.getAddress().getHostAddress() + ":" + addr.getPort()
                + " (workers " + cfg.workers + ", nodelay " + cfg.nodelay + ", work factor " + cfg.workFactor + ")"
                + (cfg.faults.any() ? " FAULTS: " + cfg.faults : ""));
    }

    /**
     * Threads named sample-worker-1, -2, ...: 15 bytes, what /proc/PID/task/TID/comm keeps, up to 9 workers;
     * from 10 on the kernel truncates the name, which still matches ^sample-worker-.
     */
    private static ThreadFactory workerThreads() {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, "sample-worker-" + n.incrementAndGet());
            t.setDaemon(false);
            return t;
        };
    }
}
