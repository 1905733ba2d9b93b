package yardstick.tomcat;

import java.io.IOException;
import java.time.Instant;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Bean;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.servlet.NoHandlerFoundException;

import yardstick.sample.Shared;

/**
 * What Spring MVC answers outside the endpoints, made Go's: an unknown path
 * (no handler; static resources are off) gets 404 page not found, a wrong
 * method 405 with Allow. And the filter that notes when each request
 * arrived, for the access log.
 */
@ControllerAdvice
public class Routing {
	private final TomcatApplication.Settings settings;

	Routing(TomcatApplication.Settings settings) {
		this.settings = settings;
	}

	/** Notes when each request arrived, for the access log (only when it is on). */
	@Bean
	Filter accessLogStart() {
		return (req, resp, chain) -> {
			if (settings.log != null) {
				req.setAttribute(SampleController.START,
						new SampleController.Start(Instant.now(), System.nanoTime(), settings.log));
			}
			chain.doFilter(req, resp);
		};
	}

	/** Go's ServeMux: 404 page not found. */
	@ExceptionHandler(NoHandlerFoundException.class)
	void notFound(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		resp.setHeader("X-Content-Type-Options", "nosniff");
		SampleController.send(req, resp, Shared.NOT_FOUND);
	}

	/** Go's ServeMux: 405 with the methods the path takes. */
	@ExceptionHandler(HttpRequestMethodNotSupportedException.class)
	void notAllowed(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		resp.setHeader("X-Content-Type-Options", "nosniff");
		resp.setHeader("Allow", req.getRequestURI().equals("/api/json") ? "POST" : "GET, HEAD");
		SampleController.send(req, resp, Shared.NOT_ALLOWED);
	}
}
