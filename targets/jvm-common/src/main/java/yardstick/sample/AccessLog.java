package yardstick.sample;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * The JSON access log, one line per request with the Go sample's fields and
 * formatting, so that bytes per request compare:
 * {"ts":"2006-01-02T15:04:05.999999999Z","method":"GET","path":"/x","status":200,"bytes":13,"dur_us":42}
 * Lines are built by hand in a StringBuilder and written through one
 * buffered writer under a lock; a daemon thread flushes it every second (as
 * the Go sample does) and {@link #close} flushes the rest. The JVM sample,
 * the framework targets (through {@link Shared.RequestLog}) and
 * targets/webflux write their lines with it.
 */
public final class AccessLog implements AutoCloseable {
    private final Object lock = new Object();
    private final Writer out;
    private final StringBuilder line = new StringBuilder(256);
    private final Thread flusher;
    private long cachedSecond = Long.MIN_VALUE;
    private String cachedPrefix = "";
    private volatile boolean closed;
    private final String pad; // the log-pad fault: appended before each line's closing brace

    /** Opens (appends to) the log at path. */
    public AccessLog(String path) throws IOException {
        this(path, 0);
    }

    /** An access log whose lines each have padBytes more bytes (the log-pad fault). */
    public AccessLog(String path, int padBytes) throws IOException {
        pad = pad(padBytes);
        out = new BufferedWriter(new OutputStreamWriter(new FileOutputStream(path, true), StandardCharsets.UTF_8),
                64 << 10);
        flusher = new Thread(this::flushLoop, "access-log-flush");
        flusher.setDaemon(true);
        flusher.start();
    }

    private void flushLoop() {
        while (!closed) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            flush();
        }
    }

    void flush() {
        synchronized (lock) {
            try {
                out.flush();
            } catch (IOException e) {
                // nothing useful to do on a request path; the loss shows in the log's size
            }
        }
    }

    /**
     * Logs one request. epochSecond/nano is the start time; path is the
     * decoded path as UTF-8 bytes (Go's r.URL.Path).
     */
    public void log(long epochSecond, int nano, String method, byte[] path, int status, long bytes, long durMicros) {
        synchronized (lock) {
            StringBuilder b = line;
            b.setLength(0);
            b.append("{\"ts\":\"");
            if (epochSecond != cachedSecond) {
                LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
                StringBuilder p = new StringBuilder(20);
                Document.Time.pad(p, t.getYear(), 4).append('-');
                Document.Time.pad(p, t.getMonthValue(), 2).append('-');
                Document.Time.pad(p, t.getDayOfMonth(), 2).append('T');
                Document.Time.pad(p, t.getHour(), 2).append(':');
                Document.Time.pad(p, t.getMinute(), 2).append(':');
                Document.Time.pad(p, t.getSecond(), 2);
                cachedPrefix = p.toString();
                cachedSecond = epochSecond;
            }
            b.append(cachedPrefix);
            Document.Time.appendFraction(b, nano);
            b.append("Z\",\"method\":");
            appendString(b, method.getBytes(StandardCharsets.UTF_8));
            b.append(",\"path\":");
            appendString(b, path);
            b.append(",\"status\":").append(status);
            b.append(",\"bytes\":").append(bytes);
            b.append(",\"dur_us\":").append(durMicros);
            b.append(pad);
            b.append("}\n");
            try {
                out.append(b);
            } catch (IOException e) {
                // as in flush()
            }
        }
    }

    /** What the "pad" field costs besides its x's. */
    static final int PAD_SYNTAX = ",\"pad\":\"\"".length();

    /** Exactly n bytes that keep a JSON object valid: a {@code ,"pad":"xx..."} member when n allows one, else n spaces (the Go sample's appendPad). */
    static String pad(int n) {
        if (n <= 0) {
            return "";
        }
        if (n < PAD_SYNTAX) {
            return " ".repeat(n);
        }
        return ",\"pad\":\"" + "x".repeat(n - PAD_SYNTAX) + "\"";
    }

    /** The Go sample's appendJSONString: no HTML escapes, \\u00XX for controls, invalid UTF-8 as \\ufffd. */
    static void appendString(StringBuilder b, byte[] s) {
        final String hex = "0123456789abcdef";
        b.append('"');
        for (int i = 0; i < s.length;) {
            int c = s[i] & 0xFF;
            if (c == '"' || c == '\\') {
                b.append('\\').append((char) c);
                i++;
            } else if (c < 0x20) {
                b.append("\\u00").append(hex.charAt(c >> 4)).append(hex.charAt(c & 0xF));
                i++;
            } else if (c < 0x80) {
                b.append((char) c);
                i++;
            } else {
                long d = Utf8.decode(s, i);
                if (Utf8.invalid(d)) {
                    b.append("\\ufffd");
                } else {
                    b.appendCodePoint(Utf8.rune(d));
                }
                i += Utf8.size(d);
            }
        }
        b.append('"');
    }

    /** Flushes and closes the log; later lines are dropped. */
    @Override
    public void close() {
        closed = true;
        flusher.interrupt();
        synchronized (lock) {
            try {
                out.close();
            } catch (IOException e) {
                // best effort at exit
            }
        }
    }
}
