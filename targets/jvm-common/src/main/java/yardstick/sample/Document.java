package yardstick.sample;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The ~300-byte JSON document /api/json validates and re-serializes, bound
 * with the Go sample's encoding/json semantics: keys match field names
 * case-insensitively (ASCII), unknown keys are an error, null leaves a field
 * as it was (but makes tags null), a repeated key overwrites, and "created"
 * is an RFC 3339 time written back with its own offset.
 */
final class Document {
    long id;
    byte[] name = new byte[0];
    byte[] email = new byte[0];
    boolean active;
    double score;
    List<byte[]> tags; // null is JSON null
    final Address address = new Address();
    Time created = Time.ZERO;

    static final class Address {
        byte[] street = new byte[0];
        byte[] city = new byte[0];
        byte[] zip = new byte[0];
        byte[] country = new byte[0];
    }

    /** The sample document load generators send (the Go sample's SampleDocument). */
    static final String SAMPLE = "{\"id\":12345,\"name\":\"Ada Lovelace\",\"email\":\"ada@example.org\",\"active\":true,"
            + "\"score\":87.5,\"tags\":[\"math\",\"engines\",\"poetry\",\"notes\"],\"address\":{\"street\":"
            + "\"12 St James's Square\",\"city\":\"London\",\"zip\":\"SW1Y 4JH\",\"country\":\"GB\"},"
            + "\"created\":\"2024-03-01T12:00:00Z\"}";

    /**
     * Reads one document from body as json.Decoder.Decode followed by a
     * More() check does: the first value must be a valid document; after it
     * only whitespace, or a ']' or '}' (which More() does not count), may
     * follow.
     */
    static Document parse(byte[] body) throws Json.Error, TrailingDataException {
        Json.Reader r = new Json.Reader(body);
        if (r.atEnd()) {
            throw new Json.Error("EOF");
        }
        int start = r.pos;
        r.skipValue(); // syntax first, as Go's decoder scans the whole value before binding
        int end = r.pos;
        r.skipSpace();
        if (r.pos < body.length && body[r.pos] != ']' && body[r.pos] != '}') {
            throw new TrailingDataException();
        }
        r.pos = start;
        Document d = new Document();
        Binder b = new Binder(r);
        b.document(d);
        r.pos = end;
        if (b.firstTypeError != null) {
            throw new Json.Error(b.firstTypeError);
        }
        return d;
    }

    /** More than one JSON value in the body. */
    static final class TrailingDataException extends Exception {
        private static final long serialVersionUID = 1L;

        TrailingDataException() {
            super("one JSON document expected", null, false, false);
        }
    }

    /** Binds the already syntax-checked value; type errors are kept and the first reported, as Go does. */
    private static final class Binder {
        final Json.Reader r;
        String firstTypeError;

        Binder(Json.Reader r) {
            this.r = r;
        }

        void typeError(Json.Kind got, String field, String goType) throws Json.Error {
            String value = got.goName;
            if (got == Json.Kind.NUMBER) {
                value = "number";
            }
            if (firstTypeError == null) {
                firstTypeError = "json: cannot unmarshal " + value + " into Go struct field " + field + " of type "
                        + goType;
            }
            r.skipValue();
        }

        /** Reads one member of an object, the value after key (already lower-cased, as Go matches it). */
        private interface Member {
            void read(String key, String asSent) throws Json.Error;
        }

        /** Reads an object's members with m; a null or another kind of value (a type error) reads none. */
        private void members(String field, String type, Member m) throws Json.Error {
            if (!next(Json.Kind.OBJECT, field, type)) {
                return;
            }
            r.pos++;
            for (boolean first = true; r.objectMore(first); first = false) {
                String key = new String(r.readString(), StandardCharsets.UTF_8);
                r.expect(':', "after object key");
                m.read(key.toLowerCase(java.util.Locale.ROOT), key);
            }
        }

        private static Json.Error unknown(String key) {
            return new Json.Error("json: unknown field \"" + key + "\"");
        }

        void document(Document d) throws Json.Error {
            Json.Kind k = r.peek();
            if (k != Json.Kind.NULL && k != Json.Kind.OBJECT) {
                typeError(k, "", "sample.Document");
                firstTypeError = "json: cannot unmarshal " + k.goName + " into Go value of type sample.Document";
                return;
            }
            members("", "sample.Document", (key, asSent) -> {
                switch (key) {
                    case "id": d.id = int64(d.id, "Document.id"); break;
                    case "name": d.name = string(d.name, "Document.name"); break;
                    case "email": d.email = string(d.email, "Document.email"); break;
                    case "active": d.active = bool(d.active, "Document.active"); break;
                    case "score": d.score = float64(d.score, "Document.score"); break;
                    case "tags": d.tags = tags(d.tags); break;
                    case "address": address(d.address); break;
                    case "created": d.created = time(d.created); break;
                    default: throw unknown(asSent);
                }
            });
        }

        void address(Address a) throws Json.Error {
            members("Document.address", "struct { Street string \"json:\\\"street\\\"\"; City string "
                    + "\"json:\\\"city\\\"\"; Zip string \"json:\\\"zip\\\"\"; Country string "
                    + "\"json:\\\"country\\\"\" }", (key, asSent) -> {
                switch (key) {
                    case "street": a.street = string(a.street, "Document.address.street"); break;
                    case "city": a.city = string(a.city, "Document.address.city"); break;
                    case "zip": a.zip = string(a.zip, "Document.address.zip"); break;
                    case "country": a.country = string(a.country, "Document.address.country"); break;
                    default: throw unknown(asSent);
                }
            });
        }

        /**
         * Whether a value of kind want comes next; a null is skipped (the
         * field keeps its value, as Go leaves it) and any other kind is a
         * type error (recorded by typeError): both false.
         */
        private boolean next(Json.Kind want, String field, String type) throws Json.Error {
            Json.Kind k = r.peek();
            if (k == want) {
                return true;
            }
            if (k == Json.Kind.NULL) {
                r.skipValue();
            } else {
                typeError(k, field, type);
            }
            return false;
        }

        /** Records Go's error for a number out of the field's range, when it is the first type error. */
        private void outOfRange(String number, String field, String type) {
            if (firstTypeError == null) {
                firstTypeError = "json: cannot unmarshal number " + number + " into Go struct field " + field
                        + " of type " + type;
            }
        }

        byte[] string(byte[] old, String field) throws Json.Error {
            return next(Json.Kind.STRING, field, "string") ? r.readString() : old;
        }

        boolean bool(boolean old, String field) throws Json.Error {
            return next(Json.Kind.BOOL, field, "bool") ? r.readBool() : old;
        }

        long int64(long old, String field) throws Json.Error {
            if (!next(Json.Kind.NUMBER, field, "int64")) {
                return old;
            }
            String s = r.readNumber();
            Long v = Shared.parseInt(s);
            if (v == null || s.startsWith("+")) {
                outOfRange(s, field, "int64");
                return old;
            }
            return v;
        }

        double float64(double old, String field) throws Json.Error {
            if (!next(Json.Kind.NUMBER, field, "float64")) {
                return old;
            }
            String s = r.readNumber();
            double v = Double.parseDouble(s);
            if (Double.isInfinite(v)) {
                outOfRange(s, field, "float64");
                return old;
            }
            return v;
        }

        List<byte[]> tags(List<byte[]> old) throws Json.Error {
            Json.Kind k = r.peek();
            if (k == Json.Kind.NULL) {
                r.skipValue();
                return null;
            }
            if (k != Json.Kind.ARRAY) {
                typeError(k, "Document.tags", "[]string");
                return old;
            }
            r.pos++;
            List<byte[]> out = new ArrayList<>();
            for (boolean first = true; r.arrayMore(first); first = false) {
                out.add(string(new byte[0], "Document.tags"));
            }
            return out;
        }

        Time time(Time old) throws Json.Error {
            Json.Kind k = r.peek();
            if (k == Json.Kind.NULL) {
                r.skipValue();
                return old;
            }
            if (k != Json.Kind.STRING) {
                r.skipValue();
                throw new Json.Error("Time.UnmarshalJSON: input is not a JSON string");
            }
            byte[] raw = r.rawString(); // Go parses the bytes between the quotes, escapes and all
            Time t = Time.parse(raw, 1, raw.length - 1);
            if (t == null) {
                String s = new String(raw, StandardCharsets.UTF_8);
                if (Time.dayOutOfRange(raw, 1, raw.length - 1)) {
                    throw new Json.Error("parsing time " + s + ": day out of range");
                }
                throw new Json.Error("parsing time " + s + " as \"2006-01-02T15:04:05Z07:00\": cannot parse "
                        + s + " as RFC 3339");
            }
            return t;
        }
    }

    /** Validate's messages, joined with "\n" as errors.Join does; empty when valid. */
    String validate() {
        List<String> errs = new ArrayList<>();
        if (id <= 0) {
            errs.add("id must be positive");
        }
        if (name.length == 0 || name.length > 200) {
            errs.add("name must have 1 to 200 bytes");
        }
        int at = -1;
        for (int i = 0; i < email.length; i++) {
            if (email[i] == '@') {
                at = i;
                break;
            }
        }
        if (at <= 0 || at == email.length - 1) {
            errs.add("email is not an address");
        }
        if (score < 0 || score > 100) {
            errs.add("score must be within 0..100");
        }
        if (tags != null && tags.size() > 32) {
            errs.add("at most 32 tags");
        }
        if (address.city.length == 0) {
            errs.add("address.city is required");
        }
        if (created.isZero()) {
            errs.add("created is required");
        }
        return String.join("\n", errs);
    }

    /** The document as json.Marshal writes it, fields in declaration order. */
    byte[] toJson() {
        Json.Out o = new Json.Out(400);
        o.raw("{\"id\":").num(id).raw(",\"name\":").str(name).raw(",\"email\":").str(email);
        o.raw(",\"active\":").bool(active).raw(",\"score\":").num(score).raw(",\"tags\":");
        if (tags == null) {
            o.raw("null");
        } else {
            o.raw("[");
            for (int i = 0; i < tags.size(); i++) {
                if (i > 0) {
                    o.raw(",");
                }
                o.str(tags.get(i));
            }
            o.raw("]");
        }
        o.raw(",\"address\":{\"street\":").str(address.street).raw(",\"city\":").str(address.city);
        o.raw(",\"zip\":").str(address.zip).raw(",\"country\":").str(address.country).raw("}");
        o.raw(",\"created\":\"").raw(created.format()).raw("\"}");
        return o.bytes();
    }

    /** A time.Time as parsed from RFC 3339: its fields in its own offset. */
    static final class Time {
        static final Time ZERO = new Time(1, 1, 1, 0, 0, 0, 0, 0);

        final int year;
        final int month;
        final int day;
        final int hour;
        final int minute;
        final int second;
        final int nanos;
        final int offsetSeconds;

        Time(int year, int month, int day, int hour, int minute, int second, int nanos, int offsetSeconds) {
            this.year = year;
            this.month = month;
            this.day = day;
            this.hour = hour;
            this.minute = minute;
            this.second = second;
            this.nanos = nanos;
            this.offsetSeconds = offsetSeconds;
        }

        /** time.Time.IsZero: the instant is January 1, year 1, 00:00:00 UTC. */
        boolean isZero() {
            long epoch = java.time.LocalDateTime.of(year, month, day, hour, minute, second)
                    .toEpochSecond(java.time.ZoneOffset.UTC) - offsetSeconds;
            return nanos == 0 && epoch == ZERO_EPOCH;
        }

        private static final long ZERO_EPOCH = java.time.LocalDateTime.of(1, 1, 1, 0, 0, 0)
                .toEpochSecond(java.time.ZoneOffset.UTC);

        /** Go's parseRFC3339 over s[from:to]; null when it does not parse. */
        static Time parse(byte[] s, int from, int to) {
            int n = to - from;
            if (n < 19) {
                return null;
            }
            int year = num(s, from, 4, 0, 9999);
            int month = num(s, from + 5, 2, 1, 12);
            int day = num(s, from + 8, 2, 1, 31);
            int hour = num(s, from + 11, 2, 0, 23);
            int minute = num(s, from + 14, 2, 0, 59);
            int second = num(s, from + 17, 2, 0, 59);
            if (year < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0
                    || day > java.time.YearMonth.of(year, month).lengthOfMonth()
                    || s[from + 4] != '-' || s[from + 7] != '-' || s[from + 10] != 'T'
                    || s[from + 13] != ':' || s[from + 16] != ':') {
                return null;
            }
            int i = from + 19;
            int nanos = 0;
            if (to - i >= 2 && s[i] == '.' && isDigit(s[i + 1])) {
                int j = i + 1;
                int digits = 0;
                while (j < to && isDigit(s[j])) {
                    if (digits < 9) {
                        nanos = nanos * 10 + (s[j] - '0');
                        digits++;
                    }
                    j++;
                }
                for (; digits < 9; digits++) {
                    nanos *= 10;
                }
                i = j;
            }
            int offset = 0;
            if (!(to - i == 1 && s[i] == 'Z')) {
                if (to - i != 6) {
                    return null;
                }
                int hh = num(s, i + 1, 2, 0, 23);
                int mm = num(s, i + 4, 2, 0, 59);
                if (hh < 0 || mm < 0 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':') {
                    return null;
                }
                offset = (hh * 60 + mm) * 60 * (s[i] == '-' ? -1 : 1);
            }
            return new Time(year, month, day, hour, minute, second, nanos, offset);
        }

        /** True when s[from:to] is RFC 3339 but for a day past the end of its month (Go says so). */
        static boolean dayOutOfRange(byte[] s, int from, int to) {
            if (to - from < 19) {
                return false;
            }
            int year = num(s, from, 4, 0, 9999);
            int month = num(s, from + 5, 2, 1, 12);
            int day = num(s, from + 8, 2, 1, 31);
            if (year < 0 || month < 0 || day < 0 || day <= java.time.YearMonth.of(year, month).lengthOfMonth()) {
                return false;
            }
            byte[] fixed = java.util.Arrays.copyOfRange(s, from, to);
            fixed[8] = '0';
            fixed[9] = '1';
            return parse(fixed, 0, fixed.length) != null;
        }

        private static boolean isDigit(byte c) {
            return c >= '0' && c <= '9';
        }

        private static int num(byte[] s, int at, int len, int min, int max) {
            int v = 0;
            for (int k = 0; k < len; k++) {
                byte c = s[at + k];
                if (!isDigit(c)) {
                    return -1;
                }
                v = v * 10 + (c - '0');
            }
            return v < min || v > max ? -1 : v;
        }

        /** time.RFC3339Nano: fraction without trailing zeros, "Z" for a zero offset. */
        String format() {
            StringBuilder sb = new StringBuilder(35);
            pad(sb, year, 4).append('-');
            pad(sb, month, 2).append('-');
            pad(sb, day, 2).append('T');
            pad(sb, hour, 2).append(':');
            pad(sb, minute, 2).append(':');
            pad(sb, second, 2);
            appendFraction(sb, nanos);
            if (offsetSeconds == 0) {
                sb.append('Z');
            } else {
                int off = Math.abs(offsetSeconds) / 60;
                sb.append(offsetSeconds < 0 ? '-' : '+');
                pad(sb, off / 60, 2).append(':');
                pad(sb, off % 60, 2);
            }
            return sb.toString();
        }

        static StringBuilder pad(StringBuilder sb, int v, int width) {
            String s = Integer.toString(v);
            for (int k = s.length(); k < width; k++) {
                sb.append('0');
            }
            return sb.append(s);
        }

        /** ".123" for 123000000 ns; nothing for 0. */
        static void appendFraction(StringBuilder sb, int nanos) {
            if (nanos == 0) {
                return;
            }
            int digits = 9;
            while (nanos % 10 == 0) {
                nanos /= 10;
                digits--;
            }
            sb.append('.');
            pad(sb, nanos, digits);
        }
    }
}
