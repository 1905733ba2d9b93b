package yardstick.scg;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The gateway's own settings, bound from {@code gateway.*} (system
 * properties, command-line {@code --gateway.x=...}, or the environment
 * variables that application.properties names as defaults).
 *
 * @param upstream  base URL every request is forwarded to, e.g.
 *                  {@code http://127.0.0.1:18090}
 * @param accessLog file that gets one JSON line per request, appended;
 *                  empty turns the access log off
 */
@ConfigurationProperties(prefix = "gateway")
public record GatewayProperties(String upstream, String accessLog) {
}
