package yardstick.webflux;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.PayloadTooLargeException;

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The sample targets' endpoints. CPU-bound work runs on the event loop that
 * received the request (as WebFlux intends); the blocking dependency of
 * /api/sleep runs on {@code Schedulers.boundedElastic()}, the scheduler
 * Reactor provides for wrapping blocking calls.
 */
@RestController
class SampleController {

	/** Bounds on what a request may ask for, as in the sample targets. */
	static final int MAX_GENERATED_SIZE = 1 << 20;
	static final int MAX_SLEEP_MS = 60_000;

	record Status(String status) {
	}

	record Slept(int slept_ms) {
	}

	record Error(String error) {
	}

	private static final Status UP = new Status("UP");

	private final int workFactor;
	private final ObjectMapper json;

	SampleController(SampleProperties props, ObjectMapper json) {
		this.workFactor = props.workFactor();
		this.json = json;
	}

	@GetMapping({"/health", "/ready"})
	Mono<Status> status() {
		return Mono.just(UP);
	}

	@GetMapping(value = "/hello", produces = "text/plain;charset=utf-8")
	Mono<String> hello() {
		return Mono.just("Hello, World!");
	}

	@GetMapping("/api/strings/{value}")
	Mono<ResponseEntity<?>> strings(@PathVariable String value) {
		if (value.isEmpty()) {
			return error(HttpStatus.BAD_REQUEST, "empty value");
		}
		return Mono.fromSupplier(() -> ResponseEntity.ok(Work.doWork(value, workFactor)));
	}

	@GetMapping("/api/generated/{size}")
	Mono<ResponseEntity<?>> generated(@PathVariable String size) {
		int n = parse(size, 0, MAX_GENERATED_SIZE);
		if (n < 0) {
			return error(HttpStatus.BAD_REQUEST, "size must be an integer from 0 to " + MAX_GENERATED_SIZE);
		}
		return Mono.fromSupplier(() -> ResponseEntity.ok(Work.doWork(Work.generatedInput(n), workFactor).summary()));
	}

	/**
	 * Reads the body as text whatever its Content-Type (as the sample
	 * targets do), binds it with Boot's ObjectMapper (unknown fields and
	 * trailing data refused, see application.properties), validates it and
	 * writes it back. spring.codec.max-in-memory-size caps the body at 64 KiB.
	 */
	@PostMapping(value = "/api/json", consumes = MediaType.ALL_VALUE)
	Mono<ResponseEntity<?>> json(@RequestBody(required = false) Mono<String> body) {
		return body
				.switchIfEmpty(Mono.error(new IllegalArgumentException("empty body")))
				.<ResponseEntity<?>>map(text -> {
					Document d;
					try {
						d = json.readValue(text, Document.class);
					} catch (JsonProcessingException e) {
						return ResponseEntity.badRequest().body(new Error("bad JSON document: " + e.getOriginalMessage()));
					}
					if (d == null) {
						return ResponseEntity.badRequest().body(new Error("bad JSON document: null"));
					}
					String problems = d.problems();
					if (!problems.isEmpty()) {
						return ResponseEntity.unprocessableEntity().body(new Error(problems));
					}
					return ResponseEntity.ok(d);
				})
				.onErrorResume(IllegalArgumentException.class,
						e -> error(HttpStatus.BAD_REQUEST, "bad JSON document: " + e.getMessage()))
				.onErrorResume(SampleController::tooLarge,
						e -> error(HttpStatus.BAD_REQUEST, "bad JSON document: request body too large"));
	}

	/** Whether e is the codec's 64 KiB limit (WebFlux wraps it in a 413). */
	private static boolean tooLarge(Throwable e) {
		for (Throwable c = e; c != null; c = c.getCause()) {
			if (c instanceof DataBufferLimitException || c instanceof PayloadTooLargeException) {
				return true;
			}
		}
		return false;
	}

	/** A blocking 50 ms (or ms) dependency, off the event loop. */
	@GetMapping("/api/sleep/{ms}")
	Mono<ResponseEntity<?>> sleep(@PathVariable String ms) {
		int n = parse(ms, 0, MAX_SLEEP_MS);
		if (n < 0) {
			return error(HttpStatus.BAD_REQUEST, "ms must be an integer from 0 to " + MAX_SLEEP_MS);
		}
		return Mono.<ResponseEntity<?>>fromCallable(() -> {
			Thread.sleep(n);
			return ResponseEntity.ok(new Slept(n));
		}).subscribeOn(Schedulers.boundedElastic());
	}

	private static Mono<ResponseEntity<?>> error(HttpStatus status, String message) {
		return Mono.just(ResponseEntity.status(status).body(new Error(message)));
	}

	/** s as a decimal integer within [min, max], or -1. */
	private static int parse(String s, int min, int max) {
		if (s.isEmpty() || s.length() > 10) {
			return -1;
		}
		for (int i = 0; i < s.length(); i++) {
			if (s.charAt(i) < '0' || s.charAt(i) > '9') {
				return -1;
			}
		}
		long v = Long.parseLong(s);
		return v < min || v > max ? -1 : (int) v;
	}
}
