package yardstick.scg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.reactivestreams.Publisher;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.GlobalFilter;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The gateway's access log: one JSON line per request, appended to the file
 * {@code gateway.access-log} names, with the fields of the Go gateway's
 * (Caddy's) JSON access log in its order, so that both sides of a gateway
 * comparison write about the same bytes per request for the same duty:
 * <pre>
 * {"level":"info","ts":1764600000.123456,"logger":"http.log.access","msg":"handled request",
 *  "request":{"remote_ip":"127.0.0.1","remote_port":"51234","client_ip":"127.0.0.1","proto":"HTTP/1.1",
 *  "method":"GET","host":"127.0.0.1:18080","uri":"/hello","headers":{"User-Agent":["..."]}},
 *  "bytes_read":0,"user_id":"","duration":0.001234,"size":13,"status":200,
 *  "resp_headers":{"Content-Type":["text/plain"],...}}
 * </pre>
 * Each line is built in a StringBuilder and written with one write(2) on
 * the event loop that served the request, as Caddy writes each line with
 * one write(2) from the goroutine that served it: no buffer, no flusher.
 * When the access log is off the filter only passes the exchange on.
 */
@Component
class AccessLogFilter implements GlobalFilter, Ordered, DisposableBean {

	private final FileChannel out;

	AccessLogFilter(GatewayProperties props) {
		String file = props.accessLog();
		if (file == null || file.isBlank()) {
			out = null;
			return;
		}
		try {
			out = FileChannel.open(Path.of(file), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
					StandardOpenOption.APPEND);
		} catch (IOException e) {
			throw new UncheckedIOException("access log " + file, e);
		}
	}

	/** First, so that the duration covers every other filter. */
	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, GatewayFilterChain chain) {
		if (out == null) {
			return chain.filter(exchange);
		}
		long startNanos = System.nanoTime();
		Instant start = Instant.now();
		AtomicLong size = new AtomicLong();
		AtomicLong read = new AtomicLong();
		ServerHttpResponse counting = new ServerHttpResponseDecorator(exchange.getResponse()) {
			@Override
			public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
				return super.writeWith(Flux.from(body).doOnNext(b -> size.addAndGet(b.readableByteCount())));
			}

			@Override
			public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
				return super.writeAndFlushWith(Flux.from(body)
						.map(p -> Flux.from(p).doOnNext(b -> size.addAndGet(b.readableByteCount()))));
			}
		};
		ServerWebExchange counted = exchange.mutate()
				.request(new ServerHttpRequestDecorator(exchange.getRequest()) {
					@Override
					public Flux<DataBuffer> getBody() {
						return super.getBody().doOnNext(b -> read.addAndGet(b.readableByteCount()));
					}
				})
				.response(counting)
				.build();
		return chain.filter(counted).doFinally(signal -> write(exchange, start,
				System.nanoTime() - startNanos, read.get(), size.get()));
	}

	private void write(ServerWebExchange exchange, Instant start, long nanos, long bytesRead, long size) {
		ServerHttpRequest req = exchange.getRequest();
		ServerHttpResponse resp = exchange.getResponse();
		StringBuilder b = new StringBuilder(1024);
		b.append("{\"level\":\"info\",\"ts\":").append(start.getEpochSecond()).append('.');
		fraction(b, start.getNano());
		b.append(",\"logger\":\"http.log.access\",\"msg\":\"handled request\",\"request\":{\"remote_ip\":");
		InetSocketAddress remote = req.getRemoteAddress();
		String ip = remote == null ? "" : remote.getAddress().getHostAddress();
		quote(b, ip);
		b.append(",\"remote_port\":");
		quote(b, remote == null ? "" : Integer.toString(remote.getPort()));
		b.append(",\"client_ip\":");
		quote(b, ip);
		// the server speaks HTTP/1.1 only (Reactor Netty's default protocol)
		b.append(",\"proto\":\"HTTP/1.1\",\"method\":");
		quote(b, req.getMethod().name());
		b.append(",\"host\":");
		String host = req.getHeaders().getFirst(HttpHeaders.HOST);
		quote(b, host == null ? "" : host);
		b.append(",\"uri\":");
		quote(b, req.getURI().getRawPath()
				+ (req.getURI().getRawQuery() == null ? "" : "?" + req.getURI().getRawQuery()));
		b.append(",\"headers\":");
		headers(b, req.getHeaders(), HttpHeaders.HOST);
		b.append("},\"bytes_read\":").append(bytesRead);
		b.append(",\"user_id\":\"\",\"duration\":").append(nanos / 1_000_000_000L).append('.');
		fraction(b, (int) (nanos % 1_000_000_000L));
		HttpStatusCode status = resp.getStatusCode();
		b.append(",\"size\":").append(size)
				.append(",\"status\":").append(status == null ? 200 : status.value())
				.append(",\"resp_headers\":");
		headers(b, resp.getHeaders(), null);
		b.append("}\n");
		ByteBuffer line = ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8));
		try {
			while (line.hasRemaining()) {
				out.write(line);
			}
		} catch (IOException e) {
			// a full disk must not fail requests: the line is lost
		}
	}

	/** Nine digits of a fraction of a second, trailing zeros trimmed (at least one digit). */
	private static void fraction(StringBuilder b, int nanos) {
		String f = String.format("%09d", nanos);
		int end = f.length();
		while (end > 1 && f.charAt(end - 1) == '0') {
			end--;
		}
		b.append(f, 0, end);
	}

	/** {"Name":["v1","v2"],...}, leaving out the header named skip. */
	private static void headers(StringBuilder b, HttpHeaders h, String skip) {
		b.append('{');
		boolean first = true;
		for (Map.Entry<String, List<String>> e : h.headerSet()) {
			if (skip != null && skip.equalsIgnoreCase(e.getKey())) {
				continue;
			}
			if (!first) {
				b.append(',');
			}
			first = false;
			quote(b, e.getKey());
			b.append(":[");
			for (int i = 0; i < e.getValue().size(); i++) {
				if (i > 0) {
					b.append(',');
				}
				quote(b, e.getValue().get(i));
			}
			b.append(']');
		}
		b.append('}');
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

	/** Closes the file when the context closes (SIGTERM). */
	@Override
	public void destroy() throws IOException {
		if (out != null) {
			out.close();
		}
	}
}
