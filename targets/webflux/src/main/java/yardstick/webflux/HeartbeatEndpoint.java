package yardstick.webflux;

import java.time.Duration;
import java.util.Map;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.handler.SimpleUrlHandlerMapping;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * GET /ws/heartbeat, the heartbeat protocol (targets/jvm-common's
 * yardstick.sample.Heartbeat) the WebFlux way: a {@link WebSocketHandler}
 * mapped ahead of the annotated controller, whose outbound stream is one
 * {@code Flux.interval(period, period)} per connection. The interval runs
 * on Reactor's shared parallel scheduler (threads {@code parallel-N}, one
 * per processor, a fixed-rate schedule from the upgrade: a late tick is
 * delivered late, not dropped), where each push's payload is stamped; the
 * frame is then written on the connection's event loop. A client that
 * reads nothing leaves its ticks buffered ({@code onBackpressureBuffer}),
 * never skipped. Reactor Netty answers PING with PONG and CLOSE with CLOSE;
 * the stream ends when the client closes. A bad period_ms is refused with
 * 400 before the upgrade, by a filter.
 */
@Configuration(proxyBeanMethods = false)
class HeartbeatEndpoint {

	/** /ws/heartbeat ahead of the annotated controller's mappings. */
	@Bean
	HandlerMapping heartbeatMapping() {
		return new SimpleUrlHandlerMapping(Map.of(yardstick.sample.Heartbeat.PATH, (WebSocketHandler) HeartbeatEndpoint::push),
				Ordered.HIGHEST_PRECEDENCE);
	}

	/** 400 with the samples' {"error":...} for a bad period_ms, before the upgrade. */
	@Bean
	WebFilter heartbeatPeriodCheck() {
		return (ServerWebExchange exchange, WebFilterChain chain) -> {
			if (!exchange.getRequest().getPath().value().equals(yardstick.sample.Heartbeat.PATH)
					|| period(exchange.getRequest().getURI().getRawQuery()) > 0) {
				return chain.filter(exchange);
			}
			var a = yardstick.sample.Heartbeat.badPeriod();
			var response = exchange.getResponse();
			response.setStatusCode(HttpStatus.BAD_REQUEST);
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			response.getHeaders().setContentLength(a.body().length);
			return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(a.body())));
		};
	}

	private static long period(String rawQuery) {
		return yardstick.sample.Heartbeat.periodMillis(yardstick.sample.Heartbeat.queryValue(rawQuery));
	}

	private static Mono<Void> push(WebSocketSession session) {
		Duration period = Duration.ofMillis(period(session.getHandshakeInfo().getUri().getRawQuery()));
		Flux<WebSocketMessage> beats = Flux.interval(period, period)
				.onBackpressureBuffer()
				.map(tick -> session.textMessage(yardstick.sample.Heartbeat.payload(tick + 1)));
		// the inbound stream ends on the client's CLOSE (or a reset): then the interval is cancelled
		return Mono.firstWithSignal(session.send(beats), session.receive().then());
	}
}
