package yardstick.webflux;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

import reactor.netty.resources.LoopResources;

/**
 * The sample targets' service on Spring WebFlux (Reactor Netty): the same
 * endpoints and bodies as targets/go and targets/java, written the way a
 * WebFlux service is written (annotated controller, Jackson, blocking work
 * on {@code Schedulers.boundedElastic()}).
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class WebfluxApplication {

	/** The sample targets' switches and the Spring property each one sets. */
	private static final Map<String, String> SWITCHES = Map.of(
			"port", "server.port",
			"access-log", "sample.access-log",
			"work-factor", "sample.work-factor",
			"workers", "reactor.netty.ioWorkerCount");

	public static void main(String[] args) {
		List<String> springArgs;
		try {
			springArgs = translate(args);
		} catch (IllegalArgumentException e) {
			System.err.println("webflux: " + e.getMessage());
			System.err.println("usage: java -jar webflux.jar [--port N] [--access-log FILE] [--work-factor N] [--workers N] [--spring.property=value ...]");
			System.exit(2);
			return;
		}
		SpringApplication.run(WebfluxApplication.class, springArgs.toArray(String[]::new));
	}

	/**
	 * Turns the sample targets' switches ({@code --port N}, {@code --port=N},
	 * {@code -port N}) into Spring's {@code --name=value} arguments and sets
	 * {@code --workers} as the system property Reactor Netty reads when its
	 * event loops are first made. Arguments of the form
	 * {@code --some.property=value} pass through; anything else is refused.
	 */
	static List<String> translate(String[] args) {
		List<String> out = new ArrayList<>();
		for (int i = 0; i < args.length; i++) {
			String a = args[i];
			if (!a.startsWith("-")) {
				throw new IllegalArgumentException("unexpected argument " + a);
			}
			String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
			int eq = body.indexOf('=');
			String name = eq < 0 ? body : body.substring(0, eq);
			String property = SWITCHES.get(name);
			if (property == null) {
				if (a.startsWith("--") && eq > 0 && name.contains(".")) {
					out.add(a); // a Spring property, e.g. --server.port=0
					continue;
				}
				throw new IllegalArgumentException("unknown switch " + a);
			}
			String value;
			if (eq >= 0) {
				value = body.substring(eq + 1);
			} else if (i + 1 < args.length) {
				value = args[++i];
			} else {
				throw new IllegalArgumentException(a + " needs a value");
			}
			switch (name) {
				case "port" -> check(name, value, 0, 65535);
				case "work-factor" -> check(name, value, 1, SampleProperties.MAX_WORK_FACTOR);
				case "workers" -> check(name, value, 1, 1024);
				default -> {
				}
			}
			if (name.equals("workers")) {
				System.setProperty(property, value);
			} else {
				out.add("--" + property + "=" + value);
			}
		}
		return out;
	}

	private static void check(String name, String value, int min, int max) {
		int v;
		try {
			v = Integer.parseInt(value);
		} catch (NumberFormatException e) {
			v = min - 1;
		}
		if (v < min || v > max) {
			throw new IllegalArgumentException("--" + name + " must be an integer from " + min + " to " + max + ", not " + value);
		}
	}

	/** Prints one line on stderr once the server listens, with its real port. */
	@Bean
	ApplicationListener<WebServerInitializedEvent> listening(SampleProperties props) {
		return event -> System.err.printf(
				"webflux listening on 127.0.0.1:%d (event loops %d, work factor %d, access log %s)%n",
				event.getWebServer().getPort(), LoopResources.DEFAULT_IO_WORKER_COUNT, props.workFactor(),
				props.accessLogOn() ? props.accessLog() : "off");
	}
}
