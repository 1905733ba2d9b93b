package yardstick.webflux;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

import static yardstick.sample.Work.crc32;
import static yardstick.sample.Work.crc32Update;

/**
 * The CPU-bound work of the string endpoints, as the sample targets do it:
 * uppercase, lowercase, reverse (by code point) and CRC-32 (IEEE, of the
 * UTF-8 bytes) of the input, {@code factor} times over, every result folded
 * into a checksum so that no repetition is dead code. The CRC-32 (Go's
 * crc32.ChecksumIEEE and crc32.Update) and the generated text are the
 * samples' own code (targets/jvm-common), the same functions every JVM
 * target computes with.
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

	/** size bytes of text that depend only on size (the samples' xorshift text, targets/jvm-common). */
	static String generatedInput(int size) {
		return new String(yardstick.sample.Work.generatedInput(size), StandardCharsets.ISO_8859_1);
	}
}
