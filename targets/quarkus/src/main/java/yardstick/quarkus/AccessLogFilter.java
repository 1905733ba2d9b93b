package yardstick.quarkus;

import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Instant;
import yardstick.sample.Shared;

/**
 * The samples' access log on Quarkus: a Vert.x route ahead of every other
 * one notes when the request arrived and writes the line when the response
 * headers go out (status and Content-Length known, body not yet written),
 * which is when the samples write theirs.
 */
@ApplicationScoped
public class AccessLogFilter {
    void install(@Observes Router router, Settings settings) {
        Shared.RequestLog log = settings.log;
        if (log == null) {
            return;
        }
        router.route().order(Integer.MIN_VALUE).handler(ctx -> {
            Instant wall = Instant.now();
            long nanos = System.nanoTime();
            ctx.addHeadersEndHandler(v -> {
                HttpServerResponse res = ctx.response();
                String len = res.headers().get("Content-Length");
                long bytes = len == null ? 0 : Long.parseLong(len);
                log.log(wall, nanos, ctx.request().method().name(), Shared.latin1(ctx.request().path()),
                        res.getStatusCode(), bytes);
            });
            ctx.next();
        });
    }
}
