package dev.kgpu.validator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class StatusFileCommandsTest {

    @TempDir
    Path folder;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private OptionalInt run(List<String> args, dev.kgpu.validator.core.Sleeper sleeper) {
        return StatusFileCommands.run(args, sleeper, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void waitForReturnsOnceTheFileIsThere() {
        Path file = folder.resolve("toolkit-ready");
        AtomicInteger polls = new AtomicInteger();
        // the toolkit validation writes its file while the gate sleeps for the third time
        OptionalInt status = run(List.of("wait-for", file.toString()), poll -> {
            if (polls.incrementAndGet() == 3) {
                try {
                    Files.writeString(file, "");
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        });

        assertThat(status).hasValue(0);
        assertThat(polls).hasValue(3);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("waiting for " + file + "\n" + file + " is there\n");
    }

    @Test
    void waitForAFileThatIsThereReturnsAtOnce() throws IOException {
        Path file = Files.writeString(folder.resolve("driver-ready"), "");
        assertThat(run(List.of("wait-for", file.toString()), poll -> {
            throw new AssertionError("slept");
        })).hasValue(0);
    }

    @Test
    void removeReadyFilesRemovesWhatRmWouldAndNothingElse() throws IOException {
        for (String name : List.of("driver-ready", "toolkit-ready", ".driver-ctr-ready", "notes")) {
            Files.writeString(folder.resolve(name), "");
        }

        assertThat(run(List.of("remove-ready-files", folder.toString()), poll -> { })).hasValue(0);

        try (var left = Files.list(folder)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(".driver-ctr-ready", "notes");
        }
        assertThat(run(List.of("remove-ready-files", folder.resolve("absent").toString()), poll -> { })).hasValue(0);
    }

    @Test
    void aCommandWithoutItsArgumentIsRefusedInOneLine() {
        assertThat(run(List.of("wait-for"), poll -> { })).hasValue(1);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("kgpu-validator: wait-for was given '' but it takes one file\n");
    }

    @Test
    void anythingElseIsTheValidatorsOwnCommandLine() {
        assertThat(run(List.of("--component", "driver"), poll -> { })).isEmpty();
        assertThat(run(List.of(), poll -> { })).isEmpty();
    }
}
