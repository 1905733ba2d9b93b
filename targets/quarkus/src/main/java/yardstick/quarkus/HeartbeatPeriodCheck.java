package yardstick.quarkus;

import io.quarkus.websockets.next.HttpUpgradeCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import yardstick.sample.Heartbeat;

/** Refuses GET /ws/heartbeat with a bad period_ms: 400, before the upgrade. */
@ApplicationScoped
public class HeartbeatPeriodCheck implements HttpUpgradeCheck {
    @Override
    public Uni<CheckResult> perform(HttpUpgradeContext context) {
        if (Heartbeat.periodMillis(Heartbeat.queryValue(context.httpRequest().query())) < 0) {
            return CheckResult.rejectUpgrade(400);
        }
        return CheckResult.permitUpgrade();
    }
}
