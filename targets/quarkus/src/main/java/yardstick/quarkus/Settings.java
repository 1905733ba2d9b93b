package yardstick.quarkus;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import yardstick.sample.Shared;

/** The target's own settings (set by Main from its switches) and the access log they open. */
@Singleton
public class Settings implements HttpServerOptionsCustomizer {
    static final String WORK_FACTOR = "yardstick.work-factor";
    static final String ACCESS_LOG = "yardstick.access-log";
    static final String NODELAY = "yardstick.nodelay";

    final int workFactor;
    final boolean nodelay;
    /** Null when the access log is off. */
    final Shared.RequestLog log;

    Settings(@ConfigProperty(name = WORK_FACTOR, defaultValue = "10") int workFactor,
            @ConfigProperty(name = ACCESS_LOG) Optional<String> accessLog, // empty is missing in MicroProfile Config
            @ConfigProperty(name = NODELAY, defaultValue = "true") boolean nodelay) {
        this.workFactor = workFactor;
        this.nodelay = nodelay;
        try {
            this.log = accessLog.isEmpty() ? null : new Shared.RequestLog(accessLog.get());
        } catch (IOException e) {
            throw new UncheckedIOException("access log: " + e.getMessage(), e);
        }
    }

    /** TCP_NODELAY on the HTTP server's connections (Vert.x's default is on; --nodelay false turns it off). */
    @Override
    public void customizeHttpServer(HttpServerOptions options) {
        options.setTcpNoDelay(nodelay);
    }

    /** Flushes the access log once Quarkus has stopped serving. */
    void stop(@Observes ShutdownEvent e) {
        if (log != null) {
            log.close();
        }
    }
}
