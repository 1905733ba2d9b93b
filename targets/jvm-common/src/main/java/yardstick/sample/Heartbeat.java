package yardstick.sample;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * The heartbeat protocol of {@code GET /ws/heartbeat}, shared by every JVM
 * target (and the Go target's twin): the query parameter {@code period_ms}
 * (an integer 100..600000, 10000 when absent, anything else refused with
 * 400 before the upgrade) and the payload of each push, ASCII
 * {@code SEQ SENT_NS}: SEQ counts 1, 2, 3... per connection and SENT_NS is
 * the wall clock in Unix epoch nanoseconds, taken just before the write.
 * Push k of a connection is due at its upgrade + k × period; a push that is
 * late is sent late, never skipped. Only the timers and the threads that
 * write differ between the targets.
 */
public final class Heartbeat {
    private Heartbeat() {
    }

    /** The path of the endpoint. */
    public static final String PATH = "/ws/heartbeat";
    /** The query parameter that sets the period. */
    public static final String PARAM = "period_ms";
    /** The period when period_ms is absent. */
    public static final long DEFAULT_PERIOD_MS = 10_000;
    /** The shortest period period_ms may ask for. */
    public static final long MIN_PERIOD_MS = 100;
    /** The longest period period_ms may ask for. */
    public static final long MAX_PERIOD_MS = 600_000;

    /**
     * The period asked for by the query parameter's value (null when the
     * parameter is absent), or -1 when it is not an integer in
     * MIN_PERIOD_MS..MAX_PERIOD_MS.
     */
    public static long periodMillis(String value) {
        if (value == null) {
            return DEFAULT_PERIOD_MS;
        }
        Long n = Shared.parseInt(value);
        return n == null || n < MIN_PERIOD_MS || n > MAX_PERIOD_MS ? -1 : n;
    }

    /**
     * The first value of period_ms in a raw query string (null or without
     * the parameter: null), percent-decoded; a malformed escape gives ""
     * (which periodMillis refuses).
     */
    public static String queryValue(String rawQuery) {
        if (rawQuery == null) {
            return null;
        }
        for (String kv : rawQuery.split("&", -1)) {
            int eq = kv.indexOf('=');
            String k = eq < 0 ? kv : kv.substring(0, eq);
            if (!k.equals(PARAM)) {
                continue;
            }
            try {
                return eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return "";
            }
        }
        return null;
    }

    /** The answer to a request whose period_ms periodMillis refused (400, before any upgrade). */
    public static Shared.Answer badPeriod() {
        return Shared.error(400, PARAM + " must be an integer from " + MIN_PERIOD_MS + " to " + MAX_PERIOD_MS);
    }

    /** The payload of push seq, stamped with the wall clock now. */
    public static String payload(long seq) {
        Instant now = Instant.now();
        return seq + " " + (now.getEpochSecond() * 1_000_000_000L + now.getNano());
    }
}
