package yardstick.tomcat;

import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

import yardstick.sample.Shared;

/**
 * The sample targets' service and the heartbeat WebSocket on Spring Boot's
 * servlet stack: Spring MVC on embedded Tomcat (its NIO connector: one
 * poller thread, at most --max-connections connections, every request on a
 * thread of its pool of --threads) and Spring WebSocket on Tomcat's JSR-356
 * container, pushes written with blocking sends from a scheduler pool. The
 * blocking server of the scenarios study, with Tomcat's and Spring Boot's
 * defaults.
 */
@SpringBootApplication
public class TomcatApplication {
	static final String PROG = "tomcat";

	/** --threads N: Tomcat's maxThreads, the request threads (server.tomcat.threads.max). */
	static final Shared.IntSwitch THREADS = new Shared.IntSwitch("threads", "THREADS", 200, 1, 10_000,
			"Tomcat request threads, maxThreads (server.tomcat.threads.max)");
	/** --max-connections N: Tomcat's maxConnections (server.tomcat.max-connections). */
	static final Shared.IntSwitch MAX_CONNECTIONS = new Shared.IntSwitch("max-connections", "MAX_CONNECTIONS", 8192, 1,
			1_000_000, "connections Tomcat's NIO connector holds; more wait in the backlog");
	/** --accept-count N: Tomcat's acceptCount, the listen backlog (server.tomcat.accept-count). */
	static final Shared.IntSwitch ACCEPT_COUNT = new Shared.IntSwitch("accept-count", "ACCEPT_COUNT", 100, 1, 65_535,
			"Tomcat's acceptCount, the listen backlog");
	/** --heartbeat-threads N: the scheduler pool the heartbeat pushes run on. */
	static final Shared.IntSwitch HEARTBEAT_THREADS = new Shared.IntSwitch("heartbeat-threads", "HEARTBEAT_THREADS", 1,
			1, 1024, "scheduler threads heartbeat-N that write the pushes (Spring Boot's scheduler default, 1)");

	static final List<Shared.IntSwitch> SWITCHES = List.of(THREADS, MAX_CONNECTIONS, ACCEPT_COUNT, HEARTBEAT_THREADS);

	public static void main(String[] args) {
		Shared.Options o = Shared.Options.parseOrExit(PROG, "java -jar tomcat.jar", args, SWITCHES);
		Shared.RequestLog log = Shared.RequestLog.openOrExit(PROG, o.accessLog);
		SpringApplication app = new SpringApplication(TomcatApplication.class);
		app.setDefaultProperties(Map.of(
				"server.port", Integer.toString(o.port),
				"server.tomcat.threads.max", Integer.toString(o.get(THREADS.name())),
				"server.tomcat.max-connections", Integer.toString(o.get(MAX_CONNECTIONS.name())),
				"server.tomcat.accept-count", Integer.toString(o.get(ACCEPT_COUNT.name()))));
		app.addInitializers(ctx -> ctx.getBeanFactory().registerSingleton("settings", new Settings(o, log)));
		try {
			app.run();
		} catch (Throwable e) {
			Throwable root = e;
			while (root.getCause() != null && root.getCause() != root) {
				root = root.getCause();
			}
			System.err.println(PROG + ": " + e.getMessage() + (root != e ? ": " + root.getMessage() : ""));
			System.exit(2);
		}
	}

	/** TCP_NODELAY on accepted connections (--nodelay; Tomcat's default is on). */
	@Bean
	WebServerFactoryCustomizer<TomcatServletWebServerFactory> nodelay(Settings settings) {
		return factory -> factory.addConnectorCustomizers(
				c -> c.setProperty("socket.tcpNoDelay", Boolean.toString(settings.options.nodelay)));
	}

	/** Flushes and closes the access log when the context closes (SIGTERM). */
	@Bean
	DisposableBean closeAccessLog(Settings settings) {
		return settings::close;
	}

	/** Prints one line on stderr once Tomcat listens, with its real port. */
	@Bean
	ApplicationListener<WebServerInitializedEvent> listening(Settings s) {
		return event -> System.err.println(PROG + " listening on 127.0.0.1:" + event.getWebServer().getPort()
				+ " (threads " + s.options.get(THREADS.name()) + ", max connections "
				+ s.options.get(MAX_CONNECTIONS.name()) + ", accept count " + s.options.get(ACCEPT_COUNT.name())
				+ ", heartbeat threads " + s.options.get(HEARTBEAT_THREADS.name()) + ", nodelay "
				+ s.options.nodelay + ", work factor " + s.options.workFactor + ")");
	}

	/** The parsed switches and the access log (null when off), closed with the context. */
	static final class Settings implements AutoCloseable {
		final Shared.Options options;
		final Shared.RequestLog log;

		Settings(Shared.Options options, Shared.RequestLog log) {
			this.options = options;
			this.log = log;
		}

		@Override
		public void close() {
			if (log != null) {
				log.close();
			}
		}
	}
}
