package yardstick.quarkus;

import io.quarkus.websockets.next.OnClose;
import io.quarkus.websockets.next.OnOpen;
import io.quarkus.websockets.next.WebSocket;
import io.quarkus.websockets.next.WebSocketConnection;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import yardstick.sample.Heartbeat;

/**
 * GET /ws/heartbeat on Quarkus WebSockets Next: each connection gets its
 * own one-shot Vert.x timer on the event loop that opened it, re-armed
 * after each push for the next due time (upgrade + seq × period), so a late
 * push is sent late and does not shift the ones after it. The callbacks are
 * {@link NonBlocking}: they run on the connection's event loop, not on the
 * worker pool (WebSockets Next's default for a method returning void).
 * A bad period_ms was refused with 400 before the upgrade
 * ({@link HeartbeatPeriodCheck}). Vert.x answers PING with PONG and CLOSE
 * with CLOSE; the client's messages are ignored (no @OnTextMessage).
 */
@WebSocket(path = Heartbeat.PATH)
public class HeartbeatSocket {
    @Inject
    Vertx vertx;

    /** The live connections' pushers, by connection id. */
    private final Map<String, Pusher> pushers = new ConcurrentHashMap<>();

    /** Arms the connection's first push, at upgrade + period. */
    @OnOpen
    @NonBlocking
    public void open(WebSocketConnection connection) {
        long period = Heartbeat.periodMillis(Heartbeat.queryValue(connection.handshakeRequest().query()));
        if (period < 0) { // HeartbeatPeriodCheck refused it already
            period = Heartbeat.DEFAULT_PERIOD_MS;
        }
        Pusher p = new Pusher(connection, period * 1_000_000L);
        pushers.put(connection.id(), p);
        p.arm();
    }

    /** Cancels the connection's timer. */
    @OnClose
    @NonBlocking
    public void close(WebSocketConnection connection) {
        Pusher p = pushers.remove(connection.id());
        if (p != null) {
            p.cancel();
        }
    }

    /** The heartbeat of one connection; every callback runs on its event loop. */
    private final class Pusher {
        private final WebSocketConnection connection;
        private final long periodNanos;
        private final long upgraded = System.nanoTime();
        private long seq;
        private volatile long timer = -1;
        private volatile boolean closed;

        Pusher(WebSocketConnection connection, long periodNanos) {
            this.connection = connection;
            this.periodNanos = periodNanos;
        }

        void arm() {
            long wait = upgraded + (seq + 1) * periodNanos - System.nanoTime();
            // whole milliseconds, rounded up: never early; at least 1 (Vert.x's smallest delay)
            timer = vertx.setTimer(Math.max(1, (wait + 999_999) / 1_000_000), id -> push());
        }

        void cancel() {
            closed = true;
            vertx.cancelTimer(timer);
        }

        private void push() {
            if (closed || connection.isClosed()) {
                return;
            }
            seq++;
            connection.sendText(Heartbeat.payload(seq)).subscribe().with(ok -> {
            }, failed -> {
            }); // a failed write ends in @OnClose
            arm();
        }
    }
}
