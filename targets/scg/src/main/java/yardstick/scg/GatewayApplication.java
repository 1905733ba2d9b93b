package yardstick.scg;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;

import reactor.netty.resources.LoopResources;

/**
 * Spring Cloud Gateway routing every request, whatever its path and method,
 * to one upstream ({@code gateway.upstream}, default from the environment
 * variable {@code UPSTREAM}). The upstream must be a loopback address: a
 * benchmark gateway never sends load off the machine.
 */
@SpringBootApplication
@EnableConfigurationProperties(GatewayProperties.class)
public class GatewayApplication {

	public static void main(String[] args) {
		SpringApplication.run(GatewayApplication.class, args);
	}

	/** The one route: {@code /**} to the upstream, path and query unchanged. */
	@Bean
	RouteLocator routes(RouteLocatorBuilder builder, GatewayProperties props) {
		URI upstream = upstream(props.upstream());
		return builder.routes()
				.route("upstream", r -> r.path("/**").uri(upstream))
				.build();
	}

	/** Prints one line on stderr once the server listens, with its real port. */
	@Bean
	ApplicationListener<WebServerInitializedEvent> listening(GatewayProperties props) {
		return event -> System.err.printf(
				"scg listening on 127.0.0.1:%d (upstream %s, event loops %d, access log %s)%n",
				event.getWebServer().getPort(), props.upstream(),
				LoopResources.DEFAULT_IO_WORKER_COUNT,
				props.accessLog() == null || props.accessLog().isBlank() ? "off" : props.accessLog());
	}

	/**
	 * Parses and checks the upstream URL: http or https, a loopback host, no
	 * path, query or fragment.
	 */
	static URI upstream(String raw) {
		if (raw == null || raw.isBlank()) {
			throw new IllegalArgumentException(
					"no upstream: set UPSTREAM or gateway.upstream (e.g. http://127.0.0.1:18090)");
		}
		URI uri;
		try {
			uri = new URI(raw.trim());
		} catch (URISyntaxException e) {
			throw new IllegalArgumentException("upstream " + raw + ": " + e.getMessage(), e);
		}
		if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
			throw new IllegalArgumentException("upstream " + raw + ": scheme must be http or https");
		}
		if (uri.getHost() == null) {
			throw new IllegalArgumentException("upstream " + raw + ": no host");
		}
		if ((uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))
				|| uri.getRawQuery() != null || uri.getRawFragment() != null) {
			throw new IllegalArgumentException("upstream " + raw + ": no path, query or fragment allowed");
		}
		try {
			for (InetAddress a : InetAddress.getAllByName(uri.getHost())) {
				if (!a.isLoopbackAddress()) {
					throw new IllegalArgumentException(
							"upstream " + raw + ": " + a.getHostAddress() + " is not a loopback address");
				}
			}
		} catch (UnknownHostException e) {
			throw new IllegalArgumentException("upstream " + raw + ": unknown host", e);
		}
		return uri;
	}
}
