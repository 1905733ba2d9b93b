package yardstick.sample;

import java.util.Arrays;

/** UTF-8 with Go's rules (unicode/utf8): what Go does to a string, byte for byte. */
final class Utf8 {
    private Utf8() {
    }

    static final int RUNE_ERROR = 0xFFFD;

    /**
     * utf8.DecodeRune(b[i:]): the rune in the low 32 bits, its size in bytes
     * in the high ones; an invalid or short sequence is (U+FFFD, 1).
     */
    static long decode(byte[] b, int i) {
        int c0 = b[i] & 0xFF;
        if (c0 < 0x80) {
            return pack(c0, 1);
        }
        int n = b.length - i;
        if (c0 >= 0xC2 && c0 <= 0xDF) {
            if (n >= 2 && cont(b[i + 1], 0x80, 0xBF)) {
                return pack((c0 & 0x1F) << 6 | (b[i + 1] & 0x3F), 2);
            }
        } else if (c0 >= 0xE0 && c0 <= 0xEF) {
            int lo = c0 == 0xE0 ? 0xA0 : 0x80;
            int hi = c0 == 0xED ? 0x9F : 0xBF; // no surrogates
            if (n >= 3 && cont(b[i + 1], lo, hi) && cont(b[i + 2], 0x80, 0xBF)) {
                return pack((c0 & 0x0F) << 12 | (b[i + 1] & 0x3F) << 6 | (b[i + 2] & 0x3F), 3);
            }
        } else if (c0 >= 0xF0 && c0 <= 0xF4) {
            int lo = c0 == 0xF0 ? 0x90 : 0x80;
            int hi = c0 == 0xF4 ? 0x8F : 0xBF; // at most U+10FFFF
            if (n >= 4 && cont(b[i + 1], lo, hi) && cont(b[i + 2], 0x80, 0xBF) && cont(b[i + 3], 0x80, 0xBF)) {
                return pack((c0 & 0x07) << 18 | (b[i + 1] & 0x3F) << 12 | (b[i + 2] & 0x3F) << 6
                        | (b[i + 3] & 0x3F), 4);
            }
        }
        return pack(RUNE_ERROR, 1);
    }

    private static boolean cont(byte c, int lo, int hi) {
        int v = c & 0xFF;
        return v >= lo && v <= hi;
    }

    private static long pack(int rune, int size) {
        return (long) size << 32 | (rune & 0xFFFFFFFFL);
    }

    static int rune(long decoded) {
        return (int) decoded;
    }

    static int size(long decoded) {
        return (int) (decoded >>> 32);
    }

    /** True when decode(b, i) is U+FFFD because the bytes are invalid. */
    static boolean invalid(long decoded) {
        return rune(decoded) == RUNE_ERROR && size(decoded) == 1;
    }

    /** A growable byte buffer that encodes runes as Go's utf8.AppendRune does. */
    static final class Out {
        private byte[] buf;
        private int n;

        Out(int capacity) {
            buf = new byte[Math.max(capacity, 16)];
        }

        private void ensure(int more) {
            if (n + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, n + more));
            }
        }

        Out rune(int r) {
            ensure(4);
            if (r < 0 || r > 0x10FFFF || (r >= 0xD800 && r <= 0xDFFF)) {
                r = RUNE_ERROR;
            }
            if (r < 0x80) {
                buf[n++] = (byte) r;
            } else if (r < 0x800) {
                buf[n++] = (byte) (0xC0 | r >> 6);
                buf[n++] = (byte) (0x80 | r & 0x3F);
            } else if (r < 0x10000) {
                buf[n++] = (byte) (0xE0 | r >> 12);
                buf[n++] = (byte) (0x80 | r >> 6 & 0x3F);
                buf[n++] = (byte) (0x80 | r & 0x3F);
            } else {
                buf[n++] = (byte) (0xF0 | r >> 18);
                buf[n++] = (byte) (0x80 | r >> 12 & 0x3F);
                buf[n++] = (byte) (0x80 | r >> 6 & 0x3F);
                buf[n++] = (byte) (0x80 | r & 0x3F);
            }
            return this;
        }

        Out add(byte b) {
            ensure(1);
            buf[n++] = b;
            return this;
        }

        Out add(byte[] b, int off, int len) {
            ensure(len);
            System.arraycopy(b, off, buf, n, len);
            n += len;
            return this;
        }

        /** Appends s, which must be ASCII. */
        Out ascii(String s) {
            ensure(s.length());
            for (int i = 0; i < s.length(); i++) {
                buf[n++] = (byte) s.charAt(i);
            }
            return this;
        }

        int length() {
            return n;
        }

        byte[] bytes() {
            return Arrays.copyOf(buf, n);
        }
    }
}
