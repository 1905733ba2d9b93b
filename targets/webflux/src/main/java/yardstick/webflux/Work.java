package yardstick.webflux;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The CPU-bound work of the string endpoints, as the sample targets do it:
 * uppercase, lowercase, reverse (by code point) and CRC-32 (IEEE, of the
 * UTF-8 bytes) of the input, {@code factor} times over, every result folded
 * into a checksum so that no repetition is dead code.
 */
final class Work {
	private Work() {
	}

	/** The JSON answer; the three strings are left out when empty. */
	record Result(
			long length,
			@JsonProperty("work_factor") int workFactor,
			@JsonProperty("uppercase") @JsonInclude(JsonInclude.Include.NON_EMPTY) String upper,
			@JsonProperty("lowercase") @JsonInclude(JsonInclude.Include.NON_EMPTY) String lower,
			@JsonInclude(JsonInclude.Include.NON_EMPTY) String reverse,
			long crc32,
			long checksum) {

		/** The same result without the strings (/api/generated). */
		Result summary() {
			return new Result(length, workFactor, null, null, null, crc32, checksum);
		}
	}

	static Result doWork(String in, int factor) {
		byte[] bytes = in.getBytes(StandardCharsets.UTF_8);
		String upper = "";
		String lower = "";
		String reverse = "";
		int crc = 0;
		int sum = 0;
		for (int i = 0; i < factor; i++) {
			upper = in.toUpperCase(Locale.ROOT);
			lower = in.toLowerCase(Locale.ROOT);
			reverse = new StringBuilder(in).reverse().toString();
			crc = crc32(bytes);
			sum = crc32Update(sum, upper.getBytes(StandardCharsets.UTF_8));
			sum = crc32Update(sum, lower.getBytes(StandardCharsets.UTF_8));
			sum = crc32Update(sum, reverse.getBytes(StandardCharsets.UTF_8));
			sum ^= crc;
		}
		return new Result(bytes.length, factor, upper, lower, reverse,
				Integer.toUnsignedLong(crc), Integer.toUnsignedLong(sum));
	}

	private static final String ALPHABET = "The quick brown fox jumps over the lazy dog 0123456789 ";

	/** size bytes of text that depend only on size (the samples' xorshift text). */
	static String generatedInput(int size) {
		byte[] b = new byte[size];
		int x = size * (int) 2654435761L + 1;
		int n = ALPHABET.length();
		for (int i = 0; i < size; i++) {
			x ^= x << 13;
			x ^= x >>> 17;
			x ^= x << 5;
			b[i] = (byte) ALPHABET.charAt(Integer.remainderUnsigned(x, n));
		}
		return new String(b, StandardCharsets.ISO_8859_1);
	}

	static int crc32(byte[] b) {
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
			TOP_BYTE_INDEX[c >>> 24] = i; // the table's top bytes are all distinct
		}
	}

	/**
	 * The CRC-32 of b continued from crc (Go's crc32.Update). The JDK's
	 * CRC32 cannot be seeded, so it is fed four bytes whose CRC-32 is crc
	 * (found by running the table backwards), then b, at the JDK's
	 * hardware-accelerated speed.
	 */
	static int crc32Update(int crc, byte[] b) {
		int[] idx = new int[4];
		int t = ~crc;
		for (int k = 3; k >= 0; k--) {
			idx[k] = TOP_BYTE_INDEX[t >>> 24];
			t = (t ^ TABLE[idx[k]]) << 8;
		}
		byte[] prefix = new byte[4];
		int reg = 0xFFFFFFFF;
		for (int k = 0; k < 4; k++) {
			prefix[k] = (byte) ((reg ^ idx[k]) & 0xFF);
			reg = TABLE[idx[k]] ^ (reg >>> 8);
		}
		CRC32 c = new CRC32();
		c.update(prefix, 0, 4);
		c.update(b, 0, b.length);
		return (int) c.getValue();
	}
}
