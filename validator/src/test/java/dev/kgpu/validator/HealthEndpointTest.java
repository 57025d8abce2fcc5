package dev.kgpu.validator;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;

@QuarkusTest
class HealthEndpointTest {

    @Test
    void livenessAnswersUp() {
        given().when().get("/q/health/live").then().statusCode(200);
    }
}
