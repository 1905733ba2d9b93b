package yardstick.vertx;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import yardstick.sample.Shared;

/**
 * The sample service on Vert.x 5 (vertx-core + vertx-web): the same
 * endpoints, bodies and access-log line as the samples (targets/java,
 * targets/go), written the Vert.x way. One {@link HttpVerticle} instance per
 * event loop shares the listening socket (Vert.x spreads connections over
 * them); handlers run on their event loop, and the blocking /api/sleep runs
 * on the worker pool through executeBlocking.
 */
public final class Main {
    private Main() {
    }

    static final String PROG = "vertx";

    /** --event-loops N: Vert.x's eventLoopPoolSize, and as many verticle instances. */
    static final Shared.IntSwitch EVENT_LOOPS = new Shared.IntSwitch("event-loops", "EVENT_LOOPS",
            VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE, 1, 1024,
            "event-loop threads vert.x-eventloop-thread-0..N-1, one HTTP verticle on each");
    /** --workers N: Vert.x's workerPoolSize, the threads executeBlocking runs on. */
    static final Shared.IntSwitch WORKERS = new Shared.IntSwitch("workers", "WORKERS",
            VertxOptions.DEFAULT_WORKER_POOL_SIZE, 1, 10_000,
            "worker threads vert.x-worker-thread-0..N-1 for /api/sleep");

    public static void main(String[] args) {
        Shared.Options o = Shared.Options.parseOrExit(PROG, "java -jar vertx.jar", args, List.of(EVENT_LOOPS, WORKERS));
        int loops = o.get(EVENT_LOOPS.name());
        Shared.RequestLog log = Shared.RequestLog.openOrExit(PROG, o.accessLog);
        Vertx vertx = Vertx.vertx(new VertxOptions()
                .setEventLoopPoolSize(loops)
                .setWorkerPoolSize(o.get(WORKERS.name())));
        final Shared.RequestLog accessLog = log;
        int port;
        try {
            port = deploy(vertx, o, log, loops);
        } catch (Exception e) {
            System.err.println(PROG + ": listen: " + (e.getCause() != null ? e.getCause().getMessage() : e));
            await(vertx.close());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            await(vertx.close()); // undeploys the verticles, closing the server
            if (accessLog != null) {
                accessLog.close();
            }
        }, "vertx-shutdown"));
        System.err.println(PROG + " listening on 127.0.0.1:" + port + " (event loops " + loops + ", workers "
                + o.get(WORKERS.name()) + ", nodelay " + o.nodelay + ", work factor " + o.workFactor + ")");
    }

    /**
     * Deploys n HTTP verticles, which share one listening socket (Vert.x
     * server sharing), and returns their port. Port 0 would give each its
     * own free port: Vert.x's negative port -1 is one free port shared.
     */
    private static int deploy(Vertx vertx, Shared.Options o, Shared.RequestLog log, int n) throws Exception {
        HttpServerOptions http = new HttpServerOptions()
                .setHost("127.0.0.1")
                .setPort(o.port == 0 ? -1 : o.port)
                .setAcceptBacklog(1024)
                .setTcpNoDelay(o.nodelay);
        List<HttpVerticle> deployed = new CopyOnWriteArrayList<>();
        Future<String> f = vertx.deployVerticle(() -> {
            HttpVerticle v = new HttpVerticle(http, o.workFactor, log);
            deployed.add(v);
            return v;
        }, new DeploymentOptions().setInstances(n));
        f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        int port = deployed.get(0).port();
        for (HttpVerticle v : deployed) {
            if (v.port() != port) {
                throw new IllegalStateException("verticles listen on ports " + port + " and " + v.port());
            }
        }
        return port;
    }

    private static void await(Future<?> f) {
        try {
            f.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println(PROG + ": close: " + e);
        }
    }
}
