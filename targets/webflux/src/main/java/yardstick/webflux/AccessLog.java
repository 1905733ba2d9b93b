package yardstick.webflux;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
 * where path is the path as sent and bytes are the body bytes sent. The
 * lines are written by the samples' own access log (targets/jvm-common's
 * yardstick.sample.AccessLog): a 64 KiB buffer under a lock, flushed every
 * second by a daemon thread and on shutdown. Off (no filter work at all)
 * when sample.access-log is empty.
 */
@Component
class AccessLog implements WebFilter, Ordered, DisposableBean {

	private final yardstick.sample.AccessLog log;

	AccessLog(SampleProperties props) {
		if (!props.accessLogOn()) {
			log = null;
			return;
		}
		try {
			log = new yardstick.sample.AccessLog(props.accessLog());
		} catch (IOException e) {
			throw new UncheckedIOException("access log " + props.accessLog(), e);
		}
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE;
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		if (log == null) {
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
			log.log(start.getEpochSecond(), start.getNano(), exchange.getRequest().getMethod().name(),
					exchange.getRequest().getPath().value().getBytes(StandardCharsets.UTF_8),
					status == null ? 200 : status.value(), bytes.get(), (System.nanoTime() - t0) / 1000);
		});
	}

	/** Flushes and closes the log when the context closes (SIGTERM). */
	@Override
	public void destroy() {
		if (log != null) {
			log.close();
		}
	}
}
