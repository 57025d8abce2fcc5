package dev.kgpu.validator;

import dev.kgpu.validator.core.Component;
import dev.kgpu.validator.core.Layer;
import dev.kgpu.validator.core.Verdict;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/** SmallRye Health readiness is UP only when the latest pass found every component valid. */
@QuarkusTest
class ReadinessTest {

    @Inject
    ValidationState state;

    @Test
    void readinessFollowsTheLatestVerdicts() {
        state.record(List.of());
        given().get("/q/health/ready").then().statusCode(503)
                .body(containsString("no validation pass has finished yet"));

        state.record(List.of(Verdict.passed(Component.DRIVER, "ok"),
                Verdict.failed(Component.CUDA, Layer.SCHEDULING, "pod x stayed Pending")));
        given().get("/q/health/ready").then().statusCode(503)
                .body("checks[0].data.cuda", equalTo("cuda FAILED scheduling: pod x stayed Pending"));

        state.record(List.of(Verdict.passed(Component.DRIVER, "ok")));
        given().get("/q/health/ready").then().statusCode(200);
        given().get("/q/health/live").then().statusCode(200);
    }
}
