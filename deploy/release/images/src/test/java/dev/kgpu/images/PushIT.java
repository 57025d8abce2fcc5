package dev.kgpu.images;

import dev.kgpu.exporter.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The air-gapped step: deploy/release/images/push copies the transfer archive into a registry (Debian's
 * docker-registry, distribution 2.8, on loopback), and what skopeo pulls back from there is byte for byte what
 * build-images made: the same manifest digests and the same layer and config blobs.
 */
class PushIT {

    private Path work;
    private Process registry;
    private String address;

    @BeforeEach
    void startRegistry() throws Exception {
        work = Files.createTempDirectory("kgpu-push");
        address = "127.0.0.1:" + Images.freePort();
        Path config = work.resolve("config.yml");
        Files.writeString(config, """
                version: 0.1
                log:
                  level: warn
                storage:
                  filesystem:
                    rootdirectory: %s
                http:
                  addr: %s
                """.formatted(work.resolve("storage"), address));
        registry = new ProcessBuilder(Images.tool("docker-registry", "docker-registry").toString(), "serve", config.toString())
                .redirectErrorStream(true).redirectOutput(work.resolve("registry.log").toFile()).start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        Await.until("the registry to answer /v2/", Duration.ofSeconds(60), () -> {
            try {
                return http.send(HttpRequest.newBuilder(URI.create("http://" + address + "/v2/"))
                                .timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
    }

    @AfterEach
    void stopRegistry() throws InterruptedException {
        if (registry != null) {
            registry.destroy();
            registry.waitFor(30, TimeUnit.SECONDS);
        }
        ImageContainer.delete(work);
    }

    @Test
    void mirrorsTheArchiveWithItsDigestsAndPullsBackTheSameBytes() throws Exception {
        ImageLayout built = Images.layout();
        Path archive = Images.output().resolve("kgpu-images-" + Images.version() + ".tar");
        assertThat(archive).isRegularFile();

        String printed = run(List.of(Images.root().resolve("deploy/release/images/push").toString(), "--from", archive.toString(),
                "--dest-tls-verify=false", address + "/kgpu"));

        for (String agent : Images.built()) {
            ImageLayout.Image image = built.image(agent, Images.version());
            assertThat(printed).contains(address + "/kgpu/" + agent + "@" + image.manifestDigest());

            Path pulled = work.resolve("pulled-" + agent);
            run(List.of(Images.tool("skopeo", "skopeo").toString(), "copy", "--quiet", "--src-tls-verify=false",
                    "docker://" + address + "/kgpu/" + agent + ":" + Images.version(), "oci:" + pulled + ":" + image.ref()));
            ImageLayout.Image back = ImageLayout.read(pulled).image(agent, Images.version());
            assertThat(back.manifestDigest()).isEqualTo(image.manifestDigest());
            assertThat(back.layerDigests()).isEqualTo(image.layerDigests());
            for (String digest : back.layerDigests()) {
                assertThat(Files.mismatch(ImageLayout.blob(pulled, digest), ImageLayout.blob(built.root(), digest)))
                        .as("layer %s of %s", digest, agent).isEqualTo(-1L);
            }
        }
    }

    private String run(List<String> command) throws IOException, InterruptedException {
        Path output = work.resolve("command.out");
        Process process = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true)
                .redirectOutput(output.toFile()).start();
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("%s finished", command).isTrue();
        String text = Files.readString(output, StandardCharsets.UTF_8);
        assertThat(process.exitValue()).as("%s exit status; it printed:%n%s", command, text).isZero();
        return text;
    }
}
