package yardstick.sample;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Hand-rolled JSON, only as much as the sample needs: an encoder that
 * writes what Go's encoding/json writes (HTML-safe string escapes, ES6-style
 * floats) and a small scanner for the /api/json document.
 */
final class Json {
    private Json() {
    }

    private static final byte[] HEX = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** A JSON text being written. */
    static final class Out {
        final Utf8.Out b;

        Out(int capacity) {
            b = new Utf8.Out(capacity);
        }

        /** Appends ASCII text as is. */
        Out raw(String s) {
            b.ascii(s);
            return this;
        }

        Out num(long v) {
            b.ascii(Long.toString(v));
            return this;
        }

        Out bool(boolean v) {
            b.ascii(v ? "true" : "false");
            return this;
        }

        /** A float64 as encoding/json writes it (finite values only). */
        Out num(double f) {
            b.ascii(formatFloat(f));
            return this;
        }

        /** A string of UTF-8 bytes as encoding/json's appendString with escapeHTML. */
        Out str(byte[] s) {
            b.add((byte) '"');
            for (int i = 0; i < s.length;) {
                int c = s[i] & 0xFF;
                if (c < 0x80) {
                    switch (c) {
                        case '\\': case '"': b.add((byte) '\\').add((byte) c); break;
                        case '\b': b.ascii("\\b"); break;
                        case '\f': b.ascii("\\f"); break;
                        case '\n': b.ascii("\\n"); break;
                        case '\r': b.ascii("\\r"); break;
                        case '\t': b.ascii("\\t"); break;
                        default:
                            if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                                b.ascii("\\u00").add(HEX[c >> 4]).add(HEX[c & 0xF]);
                            } else {
                                b.add((byte) c);
                            }
                    }
                    i++;
                    continue;
                }
                long d = Utf8.decode(s, i);
                int size = Utf8.size(d);
                if (Utf8.invalid(d)) {
                    b.ascii("\\ufffd");
                } else if (Utf8.rune(d) == 0x2028 || Utf8.rune(d) == 0x2029) {
                    b.ascii(Utf8.rune(d) == 0x2028 ? "\\u2028" : "\\u2029");
                } else {
                    b.add(s, i, size);
                }
                i += size;
            }
            b.add((byte) '"');
            return this;
        }

        byte[] bytes() {
            return b.bytes();
        }
    }

    /**
     * What encoding/json writes for a finite float64: the shortest decimal
     * that reads back as f, in plain notation for 1e-6 <= |f| < 1e21 and
     * as d.ddde-7 (exponent not padded) outside.
     */
    static String formatFloat(double f) {
        if (f == 0) {
            return (Double.doubleToRawLongBits(f) < 0) ? "-0" : "0";
        }
        BigDecimal exact = new BigDecimal(f);
        BigDecimal shortest = exact;
        for (int p = 1; p <= 17; p++) {
            BigDecimal r = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
            if (r.doubleValue() == f) {
                shortest = r;
                break;
            }
        }
        shortest = shortest.stripTrailingZeros();
        double abs = Math.abs(f);
        if (abs >= 1e-6 && abs < 1e21) {
            return shortest.toPlainString();
        }
        // d[.ddd]e±x like strconv 'e' with precision -1, then e-07 -> e-7
        String digits = shortest.unscaledValue().abs().toString();
        int exp = digits.length() - 1 - shortest.scale();
        StringBuilder sb = new StringBuilder();
        if (f < 0) {
            sb.append('-');
        }
        sb.append(digits.charAt(0));
        if (digits.length() > 1) {
            sb.append('.').append(digits, 1, digits.length());
        }
        sb.append('e').append(exp < 0 ? '-' : '+');
        int ae = Math.abs(exp);
        if (ae < 10 && exp > 0) {
            sb.append('0'); // Go pads to two digits; only e-0x is cleaned up
        }
        sb.append(ae);
        return sb.toString();
    }

    /** A syntax or type error in a request body; the message is Go-like. */
    static final class Error extends Exception {
        private static final long serialVersionUID = 1L;

        Error(String msg) {
            super(msg, null, false, false);
        }
    }

    /** Kinds of values, as Go names them in "cannot unmarshal X". */
    enum Kind {
        OBJECT("object"), ARRAY("array"), STRING("string"), NUMBER("number"), BOOL("bool"), NULL("null");

        final String goName;

        Kind(String goName) {
            this.goName = goName;
        }
    }

    /**
     * A scanner over one JSON text. Callers pull values; syntax errors carry
     * Go's scanner wording ("invalid character 'x' looking for beginning of
     * value", "unexpected EOF").
     */
    static final class Reader {
        final byte[] in;
        int pos;

        Reader(byte[] in) {
            this.in = in;
        }

        void skipSpace() {
            while (pos < in.length) {
                byte c = in[pos];
                if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
                    pos++;
                } else {
                    break;
                }
            }
        }

        boolean atEnd() {
            skipSpace();
            return pos >= in.length;
        }

        Error invalid(String context) {
            if (pos >= in.length) {
                return new Error("unexpected EOF");
            }
            return new Error("invalid character " + quoteChar(in[pos] & 0xFF) + " " + context);
        }

        static String quoteChar(int c) {
            if (c == '\'') {
                return "'\\''";
            }
            if (c == '"') {
                return "'\"'";
            }
            if (c >= 0x20 && c < 0x7F) {
                return "'" + (char) c + "'";
            }
            switch (c) {
                case '\n': return "'\\n'";
                case '\r': return "'\\r'";
                case '\t': return "'\\t'";
                default: return c < 0x80 ? String.format("'\\x%02x'", c) : "'\\u" + String.format("%04x", c) + "'";
            }
        }

        /** The kind of the next value, after whitespace; does not consume it. */
        Kind peek() throws Error {
            skipSpace();
            if (pos >= in.length) {
                throw new Error("unexpected EOF");
            }
            switch (in[pos]) {
                case '{': return Kind.OBJECT;
                case '[': return Kind.ARRAY;
                case '"': return Kind.STRING;
                case 't': case 'f': return Kind.BOOL;
                case 'n': return Kind.NULL;
                default:
                    if (in[pos] == '-' || (in[pos] >= '0' && in[pos] <= '9')) {
                        return Kind.NUMBER;
                    }
                    throw invalid("looking for beginning of value");
            }
        }

        void expect(char c, String context) throws Error {
            skipSpace();
            if (pos >= in.length || in[pos] != c) {
                throw invalid(context);
            }
            pos++;
        }

        /** After '{' or ',': true when the object goes on with a key. */
        boolean objectMore(boolean first) throws Error {
            skipSpace();
            if (pos < in.length && in[pos] == '}' && first) {
                pos++;
                return false;
            }
            if (!first) {
                if (pos < in.length && in[pos] == '}') {
                    pos++;
                    return false;
                }
                if (pos >= in.length || in[pos] != ',') {
                    throw invalid("after object key:value pair");
                }
                pos++;
                skipSpace();
            }
            if (pos >= in.length || in[pos] != '"') {
                throw invalid("looking for beginning of object key string");
            }
            return true;
        }

        /** After '[' or an element: true when the array goes on. */
        boolean arrayMore(boolean first) throws Error {
            skipSpace();
            if (pos < in.length && in[pos] == ']') {
                pos++;
                if (first) {
                    return false;
                }
                return false;
            }
            if (!first) {
                if (pos >= in.length || in[pos] != ',') {
                    throw invalid("after array element");
                }
                pos++;
            }
            peek();
            return true;
        }

        void literal(String word) throws Error {
            for (int k = 0; k < word.length(); k++) {
                if (pos >= in.length || in[pos] != word.charAt(k)) {
                    throw invalid("in literal " + word + " (expecting '" + word.charAt(k) + "')");
                }
                pos++;
            }
        }

        boolean readBool() throws Error {
            if (in[pos] == 't') {
                literal("true");
                return true;
            }
            literal("false");
            return false;
        }

        /** A number's text, checked against the JSON grammar. */
        String readNumber() throws Error {
            int start = pos;
            if (in[pos] == '-') {
                pos++;
            }
            if (pos < in.length && in[pos] == '0') {
                pos++;
            } else if (pos < in.length && in[pos] >= '1' && in[pos] <= '9') {
                while (pos < in.length && isDigit(in[pos])) {
                    pos++;
                }
            } else {
                throw invalid("in numeric literal");
            }
            if (pos < in.length && in[pos] == '.') {
                pos++;
                if (pos >= in.length || !isDigit(in[pos])) {
                    throw invalid("after decimal point in numeric literal");
                }
                while (pos < in.length && isDigit(in[pos])) {
                    pos++;
                }
            }
            if (pos < in.length && (in[pos] == 'e' || in[pos] == 'E')) {
                pos++;
                if (pos < in.length && (in[pos] == '+' || in[pos] == '-')) {
                    pos++;
                }
                if (pos >= in.length || !isDigit(in[pos])) {
                    throw invalid("in exponent of numeric literal");
                }
                while (pos < in.length && isDigit(in[pos])) {
                    pos++;
                }
            }
            return new String(in, start, pos - start, java.nio.charset.StandardCharsets.US_ASCII);
        }

        private static boolean isDigit(byte c) {
            return c >= '0' && c <= '9';
        }

        /** The raw bytes of the next string literal, quotes included, unchecked beyond its end. */
        byte[] rawString() throws Error {
            int start = pos;
            readString();
            return java.util.Arrays.copyOfRange(in, start, pos);
        }

        /**
         * A string literal decoded as Go's unquote does: invalid UTF-8 and
         * unpaired surrogates become U+FFFD.
         */
        byte[] readString() throws Error {
            pos++; // the opening quote
            Utf8.Out out = new Utf8.Out(32);
            while (true) {
                if (pos >= in.length) {
                    throw new Error("unexpected EOF");
                }
                int c = in[pos] & 0xFF;
                if (c == '"') {
                    pos++;
                    return out.bytes();
                }
                if (c < 0x20) {
                    throw invalid("in string literal");
                }
                if (c == '\\') {
                    pos++;
                    if (pos >= in.length) {
                        throw new Error("unexpected EOF");
                    }
                    int e = in[pos] & 0xFF;
                    switch (e) {
                        case '"': case '\\': case '/': out.add((byte) e); pos++; break;
                        case 'b': out.add((byte) '\b'); pos++; break;
                        case 'f': out.add((byte) '\f'); pos++; break;
                        case 'n': out.add((byte) '\n'); pos++; break;
                        case 'r': out.add((byte) '\r'); pos++; break;
                        case 't': out.add((byte) '\t'); pos++; break;
                        case 'u': {
                            pos++;
                            int r = hex4();
                            if (r >= 0xD800 && r < 0xE000) {
                                int save = pos;
                                if (r < 0xDC00 && pos + 1 < in.length && in[pos] == '\\' && in[pos + 1] == 'u') {
                                    pos += 2;
                                    int r2 = hex4();
                                    if (r2 >= 0xDC00 && r2 < 0xE000) {
                                        out.rune(0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00));
                                        break;
                                    }
                                    pos = save; // the second escape stands alone
                                }
                                r = Utf8.RUNE_ERROR;
                            }
                            out.rune(r);
                            break;
                        }
                        default:
                            throw invalid("in string escape code");
                    }
                    continue;
                }
                if (c < 0x80) {
                    out.add((byte) c);
                    pos++;
                    continue;
                }
                long d = Utf8.decode(in, pos);
                if (Utf8.invalid(d)) {
                    out.rune(Utf8.RUNE_ERROR);
                } else {
                    out.add(in, pos, Utf8.size(d));
                }
                pos += Utf8.size(d);
            }
        }

        private int hex4() throws Error {
            int r = 0;
            for (int k = 0; k < 4; k++) {
                if (pos >= in.length) {
                    throw new Error("unexpected EOF");
                }
                int c = in[pos];
                int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (v < 0) {
                    throw invalid("in \\u hexadecimal character escape");
                }
                r = r << 4 | v;
                pos++;
            }
            return r;
        }

        /** Skips one value of any kind (syntax-checked). */
        void skipValue() throws Error {
            switch (peek()) {
                case OBJECT:
                    pos++;
                    for (boolean first = true; objectMore(first); first = false) {
                        readString();
                        expect(':', "after object key");
                        skipValue();
                    }
                    break;
                case ARRAY:
                    pos++;
                    for (boolean first = true; arrayMore(first); first = false) {
                        skipValue();
                    }
                    break;
                case STRING: readString(); break;
                case NUMBER: readNumber(); break;
                case BOOL: readBool(); break;
                case NULL: literal("null"); break;
                default: throw new IllegalStateException();
            }
        }
    }
}
