package yardstick.tomcat;

import java.io.IOException;
import java.time.Instant;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

import yardstick.sample.Shared;
import yardstick.sample.Shared.Answer;

/**
 * The samples' endpoints on Spring MVC: each handler runs on the Tomcat
 * request thread that read the request, and /api/sleep/{ms} blocks that
 * thread (the servlet model: Tomcat's pool of --threads bounds the
 * requests in progress). The answers are the samples' own code
 * (targets/jvm-common's Shared), written straight to the servlet response
 * with an exact Content-Length; the path parameters are taken from the raw
 * request URI, so an invalid UTF-8 byte stays one byte. An unknown path
 * gets Go's 404 and a wrong method Go's 405 with Allow ({@link Routing}).
 */
@RestController
public class SampleController {
	static final String START = "yardstick.start";

	private final TomcatApplication.Settings settings;

	SampleController(TomcatApplication.Settings settings) {
		this.settings = settings;
	}

	@GetMapping("/health")
	void health(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.UP);
	}

	@GetMapping("/ready")
	void ready(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.UP);
	}

	@GetMapping("/hello")
	void hello(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.HELLO);
	}

	@GetMapping("/api/strings/{value}")
	void strings(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.strings(Shared.unescape(lastSegment(req)), settings.options.workFactor));
	}

	@GetMapping("/api/generated/{size}")
	void generated(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.generated(Shared.latin1(Shared.unescape(lastSegment(req))), settings.options.workFactor));
	}

	/** The blocking dependency: this request thread sleeps. */
	@GetMapping("/api/sleep/{ms}")
	void sleep(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		long ms = Shared.sleepMillis(Shared.latin1(Shared.unescape(lastSegment(req))));
		if (ms < 0) {
			send(req, resp, Shared.badSleep());
			return;
		}
		send(req, resp, Shared.sleep(ms) ? Shared.slept(ms) : Shared.error(500, "interrupted"));
	}

	@PostMapping("/api/json")
	void json(HttpServletRequest req, HttpServletResponse resp) throws IOException {
		send(req, resp, Shared.json(Shared.readBody(req.getInputStream(), Shared.MAX_JSON_BODY)));
	}

	/** Writes the access-log line (when on), then the answer with its exact Content-Length. */
	static void send(HttpServletRequest req, HttpServletResponse resp, Answer a) throws IOException {
		log(req, a.status(), a.body().length);
		resp.setStatus(a.status());
		resp.setContentType(a.contentType());
		resp.setContentLength(a.body().length);
		resp.getOutputStream().write(a.body());
	}

	/** Logs req (when the log is on) with status and body size. */
	static void log(HttpServletRequest req, int status, int bytes) {
		if (req.getAttribute(START) instanceof Start s) {
			s.log.log(s.wall, s.nanos, req.getMethod(), Shared.latin1(req.getRequestURI()), status, bytes);
		}
	}

	/** When a request arrived (wall clock and System.nanoTime), and the log to write it to. */
	record Start(Instant wall, long nanos, Shared.RequestLog log) {
	}

	/** The last segment of the raw (still escaped) request URI, as bytes. */
	private static byte[] lastSegment(HttpServletRequest req) {
		String raw = req.getRequestURI();
		return Shared.latin1(raw.substring(raw.lastIndexOf('/') + 1));
	}
}
