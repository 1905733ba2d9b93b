package yardstick.quarkus;

import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.NonBlocking;
import jakarta.ws.rs.Encoded;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.nio.charset.StandardCharsets;
import yardstick.sample.Shared;
import yardstick.sample.Shared.Answer;

/**
 * The sample's endpoints as a Quarkus REST resource. The CPU-bound ones are
 * {@link NonBlocking}: they run on the Vert.x event loop, as in the Vert.x
 * target. /api/sleep is {@link Blocking}: Quarkus runs it on its worker pool
 * (executor-thread-N), where waiting is allowed.
 */
@Path("/")
public class Endpoints {
    private final Settings settings;

    Endpoints(Settings settings) {
        this.settings = settings;
    }

    @GET
    @Path("health")
    @NonBlocking
    public Response health() {
        return answer(Shared.UP);
    }

    @GET
    @Path("ready")
    @NonBlocking
    public Response ready() {
        return answer(Shared.UP);
    }

    @GET
    @Path("hello")
    @NonBlocking
    public Response hello() {
        return answer(Shared.HELLO);
    }

    /** value as sent (@Encoded): the bytes are percent-decoded here, so an invalid UTF-8 byte stays one byte. */
    @GET
    @Path("api/strings/{value}")
    @NonBlocking
    public Response strings(@Encoded @PathParam("value") String value) {
        return answer(Shared.strings(Shared.unescape(Shared.latin1(value)), settings.workFactor));
    }

    @GET
    @Path("api/generated/{size}")
    @NonBlocking
    public Response generated(@Encoded @PathParam("size") String size) {
        return answer(Shared.generated(decoded(size), settings.workFactor));
    }

    /** The blocking dependency call: a worker thread waits, never the event loop. */
    @GET
    @Path("api/sleep/{ms}")
    @Blocking
    public Response sleep(@Encoded @PathParam("ms") String arg) throws InterruptedException {
        long ms = Shared.sleepMillis(decoded(arg));
        if (ms < 0) {
            return answer(Shared.badSleep());
        }
        Thread.sleep(ms);
        return answer(Shared.slept(ms));
    }

    /** The body, whatever its Content-Type; more than MAX_JSON_BODY bytes is a 400. */
    @POST
    @Path("api/json")
    @NonBlocking
    public Response json(byte[] body) {
        return answer(Shared.json(body.length > Shared.MAX_JSON_BODY ? null : body));
    }

    private static String decoded(String raw) {
        return new String(Shared.unescape(Shared.latin1(raw)), StandardCharsets.ISO_8859_1);
    }

    /** The answer's status, exact content type and body. */
    static Response answer(Answer a) {
        return Response.status(a.status()).header("Content-Type", a.contentType()).entity(a.body()).build();
    }
}
