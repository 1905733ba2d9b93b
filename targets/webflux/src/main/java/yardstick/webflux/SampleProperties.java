package yardstick.webflux;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The service's settings, bound from {@code sample.*}; application.properties
 * takes their defaults from the sample targets' environment variables.
 *
 * @param workFactor how many times the string endpoints repeat their work
 *                   (1..1000000)
 * @param accessLog  file that gets one JSON line per request, appended;
 *                   empty turns the access log off
 */
@ConfigurationProperties(prefix = "sample")
public record SampleProperties(int workFactor, String accessLog) {

	/** The largest work factor, as in the sample targets. */
	public static final int MAX_WORK_FACTOR = 1_000_000;

	public SampleProperties {
		if (workFactor < 1 || workFactor > MAX_WORK_FACTOR) {
			throw new IllegalArgumentException(
					"sample.work-factor (WORK_FACTOR) must be from 1 to " + MAX_WORK_FACTOR + ", not " + workFactor);
		}
	}

	/** Whether the access log is on. */
	public boolean accessLogOn() {
		return accessLog != null && !accessLog.isBlank();
	}
}
