package yardstick.sample;

import java.util.zip.CRC32;

/**
 * The CPU-bound work of the string endpoints, byte for byte what the Go
 * sample computes: Go strings are byte sequences, so everything here works
 * on UTF-8 bytes and decodes them with Go's rules (each byte of an invalid
 * sequence is one U+FFFD). The CRC-32 functions and the generated text are
 * public: targets/webflux does its string work the Spring way but computes
 * the checksums and the /api/generated input with these.
 */
public final class Work {
    private Work() {
    }

    /** The result of {@link #doWork}; the strings are UTF-8 bytes. */
    static final class Result {
        long length;
        int workFactor;
        byte[] upper;
        byte[] lower;
        byte[] reverse;
        int crc32;
        int checksum;

        /**
         * The Go sample's JSON: {"length":..,"work_factor":..,"uppercase":..,
         * "lowercase":..,"reverse":..,"crc32":..,"checksum":..}, the three
         * strings omitted when empty or null.
         */
        byte[] toJson() {
            Json.Out o = new Json.Out(96 + (upper == null ? 0 : 3 * (upper.length + lower.length + reverse.length)));
            o.raw("{\"length\":").num(length).raw(",\"work_factor\":").num(workFactor);
            if (upper != null && upper.length > 0) {
                o.raw(",\"uppercase\":").str(upper);
            }
            if (lower != null && lower.length > 0) {
                o.raw(",\"lowercase\":").str(lower);
            }
            if (reverse != null && reverse.length > 0) {
                o.raw(",\"reverse\":").str(reverse);
            }
            o.raw(",\"crc32\":").num(Integer.toUnsignedLong(crc32));
            o.raw(",\"checksum\":").num(Integer.toUnsignedLong(checksum)).raw("}");
            return o.bytes();
        }
    }

    /** Uppercase, lowercase, reverse and CRC32 of in, factor times over. */
    static Result doWork(byte[] in, int factor) {
        Result res = new Result();
        res.length = in.length;
        res.workFactor = factor;
        int sum = 0;
        for (int i = 0; i < factor; i++) {
            res.upper = toUpper(in);
            res.lower = toLower(in);
            res.reverse = reverse(in);
            res.crc32 = crc32(in);
            // fold every result in, so no repetition is dead code
            sum = crc32Update(sum, res.upper);
            sum = crc32Update(sum, res.lower);
            sum = crc32Update(sum, res.reverse);
            sum ^= res.crc32;
        }
        res.checksum = sum;
        return res;
    }

    private static final String ALPHABET = "The quick brown fox jumps over the lazy dog 0123456789 ";

    /** size bytes of text that depend only on size (Go's generatedInput). */
    public static byte[] generatedInput(int size) {
        byte[] b = new byte[size];
        int x = size * (int) 2654435761L + 1;
        int n = ALPHABET.length();
        for (int i = 0; i < size; i++) {
            x ^= x << 13;
            x ^= x >>> 17;
            x ^= x << 5;
            b[i] = (byte) ALPHABET.charAt(Integer.remainderUnsigned(x, n));
        }
        return b;
    }

    // ---- strings.ToUpper / ToLower / reverse over []rune

    private static boolean isAscii(byte[] s) {
        for (byte c : s) {
            if (c < 0) {
                return false;
            }
        }
        return true;
    }

    static byte[] toUpper(byte[] s) {
        if (isAscii(s)) {
            byte[] out = new byte[s.length];
            for (int i = 0; i < s.length; i++) {
                byte c = s[i];
                out[i] = c >= 'a' && c <= 'z' ? (byte) (c - 32) : c;
            }
            return out;
        }
        return mapRunes(s, true);
    }

    static byte[] toLower(byte[] s) {
        if (isAscii(s)) {
            byte[] out = new byte[s.length];
            for (int i = 0; i < s.length; i++) {
                byte c = s[i];
                out[i] = c >= 'A' && c <= 'Z' ? (byte) (c + 32) : c;
            }
            return out;
        }
        return mapRunes(s, false);
    }

    /** strings.Map(unicode.ToUpper or ToLower, s): invalid bytes become U+FFFD. */
    private static byte[] mapRunes(byte[] s, boolean upper) {
        Utf8.Out out = new Utf8.Out(s.length + 8);
        for (int i = 0; i < s.length;) {
            long rs = Utf8.decode(s, i);
            int r = Utf8.rune(rs);
            i += Utf8.size(rs);
            out.rune(upper ? Character.toUpperCase(r) : Character.toLowerCase(r));
        }
        return out.bytes();
    }

    /** string([]rune(s)) reversed: invalid bytes become U+FFFD. */
    static byte[] reverse(byte[] s) {
        if (isAscii(s)) {
            byte[] out = new byte[s.length];
            for (int i = 0, j = s.length - 1; j >= 0; i++, j--) {
                out[i] = s[j];
            }
            return out;
        }
        int[] runes = new int[s.length];
        int n = 0;
        for (int i = 0; i < s.length;) {
            long rs = Utf8.decode(s, i);
            runes[n++] = Utf8.rune(rs);
            i += Utf8.size(rs);
        }
        Utf8.Out out = new Utf8.Out(s.length + 8);
        for (int k = n - 1; k >= 0; k--) {
            out.rune(runes[k]);
        }
        return out.bytes();
    }

    // ---- CRC-32 (IEEE), through the JDK's intrinsic java.util.zip.CRC32

    /** crc32.ChecksumIEEE(b). */
    public static int crc32(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b, 0, b.length);
        return (int) c.getValue();
    }

    private static final int[] TABLE = new int[256];
    private static final int[] TOP_BYTE_INDEX = new int[256];

    static {
        for (int i = 0; i < 256; i++) {
            int c = i;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
            }
            TABLE[i] = c;
            TOP_BYTE_INDEX[c >>> 24] = i; // the top bytes of the table are all distinct
        }
    }

    /**
     * crc32.Update(crc, crc32.IEEETable, b). java.util.zip.CRC32 cannot be
     * seeded, so this feeds it four bytes whose CRC-32 is crc (found by
     * running the table backwards) and then b: the same result as Go's, at
     * the JDK's (hardware-accelerated) speed for b, like Go's own.
     */
    public static int crc32Update(int crc, byte[] b) {
        CRC32 c = new CRC32();
        c.update(prefixFor(crc), 0, 4);
        c.update(b, 0, b.length);
        return (int) c.getValue();
    }

    /** Four bytes whose CRC-32 is crc. */
    static byte[] prefixFor(int crc) {
        int[] idx = new int[4];
        int t = ~crc; // the register after the four bytes
        for (int k = 3; k >= 0; k--) {
            idx[k] = TOP_BYTE_INDEX[t >>> 24];
            t = (t ^ TABLE[idx[k]]) << 8;
        }
        byte[] p = new byte[4];
        int reg = 0xFFFFFFFF;
        for (int k = 0; k < 4; k++) {
            p[k] = (byte) ((reg ^ idx[k]) & 0xFF);
            reg = TABLE[idx[k]] ^ (reg >>> 8);
        }
        return p;
    }
}
