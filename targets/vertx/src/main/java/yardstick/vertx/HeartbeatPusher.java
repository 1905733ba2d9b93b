package yardstick.vertx;

import io.vertx.core.Vertx;
import io.vertx.core.http.ServerWebSocket;
import yardstick.sample.Heartbeat;

/**
 * The heartbeat of one WebSocket connection: a one-shot Vert.x timer on the
 * connection's event loop (the context that upgraded it), re-armed after
 * each push for the next due time, upgrade + seq × period, so that a late
 * push does not shift the ones after it (and is sent late, not skipped).
 * Every callback runs on that one event loop, so the fields need no
 * locking. Vert.x answers PING with PONG and CLOSE with CLOSE itself; what
 * the client sends is otherwise dropped.
 */
final class HeartbeatPusher {
    private final Vertx vertx;
    private final ServerWebSocket ws;
    private final long periodNanos;
    private final long upgraded = System.nanoTime();
    private long seq;
    private long timer = -1;
    private boolean closed;

    HeartbeatPusher(Vertx vertx, ServerWebSocket ws, long periodMillis) {
        this.vertx = vertx;
        this.ws = ws;
        this.periodNanos = periodMillis * 1_000_000L;
    }

    /** Arms the first push (upgrade + period) and cancels the timer when the connection closes. */
    void start() {
        ws.handler(data -> {
        }); // the client's data frames are ignored
        ws.exceptionHandler(e -> {
        }); // a reset connection also ends in closeHandler
        ws.closeHandler(v -> {
            closed = true;
            vertx.cancelTimer(timer);
        });
        arm();
    }

    private void arm() {
        long wait = upgraded + (seq + 1) * periodNanos - System.nanoTime();
        // whole milliseconds, rounded up: never before the due time; at least 1 (Vert.x's smallest delay)
        long ms = Math.max(1, (wait + 999_999) / 1_000_000);
        timer = vertx.setTimer(ms, id -> push());
    }

    private void push() {
        if (closed) {
            return;
        }
        seq++;
        ws.writeTextMessage(Heartbeat.payload(seq)); // a failed write ends in closeHandler
        arm();
    }
}
