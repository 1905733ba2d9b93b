package yardstick.webflux;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.concurrent.atomic.AtomicLong;

import org.reactivestreams.Publisher;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The access log: one JSON line per request with the sample targets'
 * fields in their order, e.g.
 * {"ts":"2026-11-30T06:29:30.291279737Z","method":"GET","path":"/api/generated/128","status":200,"bytes":72,"dur_us":452}
 * where bytes are the body bytes sent. Lines go through a 64 KiB buffer
 * under a lock; a daemon thread flushes it every second and shutdown
 * flushes and closes it, as the sample targets do. Off (no filter work at
 * all) when sample.access-log is empty.
 */
@Component
class AccessLog implements WebFilter, Ordered, DisposableBean {

	private static final DateTimeFormatter SECONDS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss")
			.withZone(ZoneOffset.UTC);

	private final OutputStream out;
	private final Thread flusher;

	AccessLog(SampleProperties props) {
		if (!props.accessLogOn()) {
			out = null;
			flusher = null;
			return;
		}
		try {
			out = new BufferedOutputStream(new FileOutputStream(props.accessLog(), true), 64 << 10);
		} catch (IOException e) {
			throw new UncheckedIOException("access log " + props.accessLog(), e);
		}
		flusher = new Thread(this::flushEverySecond, "access-log-flush");
		flusher.setDaemon(true);
		flusher.start();
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (out == null) {
			return chain.filter(exchange);
		}
		Instant start = Instant.now();
		long t0 = System.nanoTime();
		AtomicLong bytes = new AtomicLong();
		ServerHttpResponse counting = new ServerHttpResponseDecorator(exchange.getResponse()) {
			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
				return super.writeWith(Flux.from(body).doOnNext(b -> bytes.addAndGet(b.readableByteCount())));
			}

			@Override
			public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
				return super.writeAndFlushWith(Flux.from(body).map(
						p -> Flux.from(p).doOnNext(b -> bytes.addAndGet(b.readableByteCount()))));
			}
		};
		ServerWebExchange counted = exchange.mutate().response(counting).build();
		return chain.filter(counted).doFinally(signal -> {
			var status = exchange.getResponse().getStatusCode();
			write(start, exchange.getRequest().getMethod().name(), exchange.getRequest().getPath().value(),
					status == null ? 200 : status.value(), bytes.get(), (System.nanoTime() - t0) / 1000);
		});
	}

	private void write(Instant ts, String method, String path, int status, long bytes, long durUs) {
		StringBuilder b = new StringBuilder(160);
		b.append("{\"ts\":\"");
		SECONDS.formatTo(ts, b);
		int nanos = ts.getNano();
		if (nanos != 0) { // RFC 3339 with trailing zeros trimmed, as Go writes it
			String frac = String.format("%09d", nanos);
			int end = frac.length();
			while (frac.charAt(end - 1) == '0') {
				end--;
			}
			b.append('.').append(frac, 0, end);
		}
		b.append("Z\",\"method\":");
		quote(b, method);
		b.append(",\"path\":");
		quote(b, path);
		b.append(",\"status\":").append(status)
				.append(",\"bytes\":").append(bytes)
				.append(",\"dur_us\":").append(durUs)
				.append("}\n");
		byte[] line = b.toString().getBytes(StandardCharsets.UTF_8);
		synchronized (this) {
			try {
				out.write(line);
			} catch (IOException e) {
				// a full disk must not fail requests; the line is lost
			}
		}
	}

	/** Appends s as a JSON string. */
	static void quote(StringBuilder b, String s) {
		b.append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			switch (c) {
				case '"' -> b.append("\\\"");
				case '\\' -> b.append("\\\\");
				case '\n' -> b.append("\\n");
				case '\r' -> b.append("\\r");
				case '\t' -> b.append("\\t");
				default -> {
					if (c < 0x20) {
						b.append(String.format("\\u%04x", (int) c));
					} else {
						b.append(c);
					}
				}
			}
		}
		b.append('"');
	}

	private void flushEverySecond() {
		while (true) {
			try {
				Thread.sleep(1000);
			} catch (InterruptedException e) {
				return;
			}
			synchronized (this) {
				try {
					out.flush();
				} catch (IOException e) {
					// retried in a second
				}
			}
		}
	}

	/** Flushes and closes the log when the context closes (SIGTERM). */
	@Override
	public void destroy() throws IOException {
		if (out == null) {
			return;
		}
		flusher.interrupt();
		synchronized (this) {
			out.close();
		}
	}
}
