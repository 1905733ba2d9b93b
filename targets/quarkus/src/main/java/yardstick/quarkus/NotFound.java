package yardstick.quarkus;

import io.vertx.core.http.HttpServerRequest;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import yardstick.sample.Shared;

/** Go's ServeMux answers for an unknown path (404) and a wrong method (405 with Allow). */
public class NotFound {
    /** 404 page not found. */
    @ServerExceptionMapper
    public Response notFound(NotFoundException e) {
        return Response.fromResponse(Endpoints.answer(Shared.NOT_FOUND))
                .header("X-Content-Type-Options", "nosniff").build();
    }

    /** 405 Method Not Allowed, with the methods the path takes (JAX-RS's exception does not carry them). */
    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, HttpServerRequest req) {
        String allow = req.path().equals("/api/json") ? "POST" : "GET, HEAD";
        return Response.fromResponse(Endpoints.answer(Shared.NOT_ALLOWED))
                .header("X-Content-Type-Options", "nosniff").header("Allow", allow).build();
    }
}
