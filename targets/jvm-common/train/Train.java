import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The training load of an AOT-cache build: drives a bounded set of requests
 * at every endpoint of a framework target on 127.0.0.1, so that the classes
 * and methods a benchmark uses are loaded, linked and profiled while the
 * JVM records. Run with the JDK's source launcher:
 *
 * <pre>java Train.java PORT [ROUNDS]</pre>
 *
 * Waits (at most 30 s) for /ready, then sends ROUNDS (default 300, at most
 * 100000) rounds of the endpoint mix from 4 threads, each request checked
 * for its expected status; stops after 120 s whatever is left. Exits 1 on a
 * wrong status or a failed request, 2 on bad arguments.
 */
public final class Train {
    private static final String DOC = "{\"id\":12345,\"name\":\"Ada Lovelace\",\"email\":\"ada@example.org\","
            + "\"active\":true,\"score\":87.5,\"tags\":[\"math\",\"engines\",\"poetry\",\"notes\"],\"address\":"
            + "{\"street\":\"12 St James's Square\",\"city\":\"London\",\"zip\":\"SW1Y 4JH\",\"country\":\"GB\"},"
            + "\"created\":\"2024-03-01T12:00:00Z\"}";

    private record Req(String method, String path, String body, int status) {
    }

    /** One round: every endpoint, the payload sizes the studies use, and the error paths. */
    private static final List<Req> ROUND = List.of(
            new Req("GET", "/health", null, 200),
            new Req("GET", "/ready", null, 200),
            new Req("GET", "/hello", null, 200),
            new Req("GET", "/api/strings/abc", null, 200),
            new Req("GET", "/api/strings/Gr%C3%BC%C3%9Fe", null, 200),
            new Req("GET", "/api/generated/7", null, 200),
            new Req("GET", "/api/generated/128", null, 200),
            new Req("GET", "/api/generated/2048", null, 200),
            new Req("GET", "/api/generated/8192", null, 200),
            new Req("GET", "/api/generated/x", null, 400),
            new Req("POST", "/api/json", DOC, 200),
            new Req("POST", "/api/json", "{\"id\":0}", 422),
            new Req("POST", "/api/json", "{\"id\":", 400),
            new Req("GET", "/api/sleep/1", null, 200),
            new Req("GET", "/nope", null, 404));

    public static void main(String[] args) throws Exception {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: java Train.java PORT [ROUNDS]");
            System.exit(2);
        }
        int port;
        int rounds = 300;
        try {
            port = Integer.parseInt(args[0]);
            if (args.length == 2) {
                rounds = Integer.parseInt(args[1]);
            }
        } catch (NumberFormatException e) {
            System.err.println("train: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (port < 1 || port > 65535 || rounds < 1 || rounds > 100_000) {
            System.err.println("train: want PORT 1..65535 and ROUNDS 1..100000");
            System.exit(2);
        }
        String base = "http://127.0.0.1:" + port;
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();

        long readyBy = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                if (send(client, base, ROUND.get(1)) == 200) {
                    break;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > readyBy) {
                System.err.println("train: " + base + "/ready not 200 after 30 s");
                System.exit(1);
            }
            Thread.sleep(20);
        }

        long stopBy = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        final int n = rounds;
        int threads = 4;
        long t0 = System.nanoTime();
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                final int first = t;
                done.add(pool.submit(() -> {
                    int sent = 0;
                    for (int r = first; r < n && System.nanoTime() < stopBy; r += threads) {
                        for (Req q : ROUND) {
                            int got = send(client, base, q);
                            if (got != q.status()) {
                                throw new IOException(q.method() + " " + q.path() + ": status " + got + ", want "
                                        + q.status());
                            }
                            sent++;
                        }
                    }
                    return sent;
                }));
            }
            int total = 0;
            for (Future<Integer> f : done) {
                try {
                    total += f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    System.err.println("train: " + e.getCause());
                    System.exit(1);
                }
            }
            System.err.printf("train: %d requests to %s in %.1f s%n", total, base, (System.nanoTime() - t0) / 1e9);
        }
    }

    private static int send(HttpClient client, String base, Req q) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + q.path())).timeout(Duration.ofSeconds(10));
        b = q.body() == null ? b.method(q.method(), HttpRequest.BodyPublishers.noBody())
                : b.method(q.method(), HttpRequest.BodyPublishers.ofString(q.body()));
        return client.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
