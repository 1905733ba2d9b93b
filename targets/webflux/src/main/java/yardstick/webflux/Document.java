package yardstick.webflux;

import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * The ~300-byte JSON document POST /api/json validates and writes back,
 * the sample targets' document field for field.
 */
record Document(
		long id,
		String name,
		String email,
		boolean active,
		double score,
		List<String> tags,
		Address address,
		OffsetDateTime created) {

	record Address(String street, String city, String zip, String country) {
	}

	/** What is wrong with the document, one reason a line; empty when valid. */
	String problems() {
		List<String> errs = new ArrayList<>();
		if (id <= 0) {
			errs.add("id must be positive");
		}
		int nameBytes = name == null ? 0 : name.getBytes(StandardCharsets.UTF_8).length;
		if (nameBytes < 1 || nameBytes > 200) {
			errs.add("name must have 1 to 200 bytes");
		}
		int at = email == null ? -1 : email.indexOf('@');
		if (at <= 0 || at == email.length() - 1) {
			errs.add("email is not an address");
		}
		if (!(score >= 0 && score <= 100)) {
			errs.add("score must be within 0..100");
		}
		if (tags != null && tags.size() > 32) {
			errs.add("at most 32 tags");
		}
		if (address == null || address.city() == null || address.city().isEmpty()) {
			errs.add("address.city is required");
		}
		if (created == null) {
			errs.add("created is required");
		}
		return String.join("\n", errs);
	}
}
