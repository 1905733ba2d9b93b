package yardstick.tomcat;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.ServerHttpRequest;
import org.springframework.http.server.ServerHttpResponse;
import org.springframework.http.server.ServletServerHttpRequest;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.web.socket.CloseStatus;
import org.springframework.web.socket.TextMessage;
import org.springframework.web.socket.WebSocketHandler;
import org.springframework.web.socket.WebSocketSession;
import org.springframework.web.socket.config.annotation.EnableWebSocket;
import org.springframework.web.socket.config.annotation.WebSocketConfigurer;
import org.springframework.web.socket.config.annotation.WebSocketHandlerRegistry;
import org.springframework.web.socket.handler.AbstractWebSocketHandler;
import org.springframework.web.socket.server.HandshakeInterceptor;

import yardstick.sample.Heartbeat;
import yardstick.sample.Shared;

/**
 * GET /ws/heartbeat on Spring WebSocket over Tomcat's JSR-356 container.
 * Each connection gets one fixed-rate task, from its upgrade, on a
 * {@link ThreadPoolTaskScheduler} of --heartbeat-threads threads
 * ({@code heartbeat-N}; 1 by default, as Spring Boot's own scheduler): a
 * late run is run late, not skipped, and runs of one connection never
 * overlap. Each push is a blocking send (Tomcat's basic remote), so a
 * client that stops reading holds a scheduler thread until Tomcat's
 * blocking-send timeout (20 s), delaying the pushes behind it: the servlet
 * model's cost. Between pushes a connection holds no thread: Tomcat's NIO
 * poller watches it, and a request thread reads what arrives (it answers
 * PING with PONG and CLOSE with CLOSE; data frames are dropped). A bad
 * period_ms is refused with 400 before the upgrade.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebSocket
public class HeartbeatSocket implements WebSocketConfigurer {
	private static final String PERIOD = "yardstick.period";
	private static final String TASK = "yardstick.task";

	private final TomcatApplication.Settings settings;

	HeartbeatSocket(TomcatApplication.Settings settings) {
		this.settings = settings;
	}

	/** The pool the pushes run on. */
	@Bean(destroyMethod = "shutdown")
	ThreadPoolTaskScheduler heartbeatScheduler() {
		ThreadPoolTaskScheduler s = new ThreadPoolTaskScheduler();
		s.setPoolSize(settings.options.get(TomcatApplication.HEARTBEAT_THREADS.name()));
		s.setThreadNamePrefix("heartbeat-");
		s.setRemoveOnCancelPolicy(true); // a closed connection's task leaves the queue at once
		s.initialize();
		return s;
	}

	@Override
	public void registerWebSocketHandlers(WebSocketHandlerRegistry registry) {
		registry.addHandler(new Pusher(heartbeatScheduler()), Heartbeat.PATH)
				.addInterceptors(new PeriodCheck())
				.setAllowedOrigins("*");
	}

	/** Checks period_ms before the upgrade: 400 with the samples' {"error":...}; logs the upgrade (101). */
	private static final class PeriodCheck implements HandshakeInterceptor {
		@Override
		public boolean beforeHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
				Map<String, Object> attributes) throws IOException {
			long period = Heartbeat.periodMillis(Heartbeat.queryValue(request.getURI().getRawQuery()));
			if (period < 0) {
				Shared.Answer a = Heartbeat.badPeriod();
				if (request instanceof ServletServerHttpRequest r) {
					SampleController.log(r.getServletRequest(), a.status(), a.body().length);
				}
				response.setStatusCode(HttpStatus.BAD_REQUEST);
				response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
				response.getHeaders().setContentLength(a.body().length);
				response.getBody().write(a.body());
				return false;
			}
			attributes.put(PERIOD, period);
			return true;
		}

		@Override
		public void afterHandshake(ServerHttpRequest request, ServerHttpResponse response, WebSocketHandler handler,
				Exception exception) {
			if (exception == null && request instanceof ServletServerHttpRequest r) {
				SampleController.log(r.getServletRequest(), 101, 0);
			}
		}
	}

	/** Schedules each connection's pushes and cancels them when it closes; ignores what the client sends. */
	private static final class Pusher extends AbstractWebSocketHandler {
		private final ThreadPoolTaskScheduler scheduler;

		Pusher(ThreadPoolTaskScheduler scheduler) {
			this.scheduler = scheduler;
		}

		@Override
		public void afterConnectionEstablished(WebSocketSession session) {
			long period = (Long) session.getAttributes().get(PERIOD);
			Instant first = Instant.now().plusMillis(period);
			long[] seq = {0}; // runs of one fixed-rate task never overlap
			ScheduledFuture<?> task = scheduler.scheduleAtFixedRate(() -> {
				if (!session.isOpen()) {
					return;
				}
				try {
					session.sendMessage(new TextMessage(Heartbeat.payload(++seq[0])));
				} catch (IOException | RuntimeException e) { // gone, or the send timed out: close it
					try {
						session.close(CloseStatus.SESSION_NOT_RELIABLE);
					} catch (IOException ignored) {
						// already closed
					}
				}
			}, first, Duration.ofMillis(period));
			session.getAttributes().put(TASK, task);
		}

		@Override
		public void afterConnectionClosed(WebSocketSession session, CloseStatus status) {
			if (session.getAttributes().get(TASK) instanceof ScheduledFuture<?> task) {
				task.cancel(false);
			}
		}
	}
}
