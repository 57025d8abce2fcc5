package dev.kgpu.nvml;

import dev.kgpu.agent.testing.BadInputs;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mock's part of the bad-input corpus: profiles ({@code MOCK_NVML_PROFILE}) and events-file lines
 * ({@code MOCK_NVML_EVENTS}) that are not what the README describes. A profile is refused with one line naming
 * the file and, inside it, the JSON path and value, and the node before stays; a line is skipped with one line
 * saying why. Nothing crashes the process that loaded the library.
 */
class MockBadInputsTest {

    static final MockNvml MOCK = MockNvml.load();
    static final String GPU = "GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93";

    @TempDir
    static Path dir;

    @AfterEach
    void resetMock() {
        MOCK.reset();
    }

    /** rtx3060's profile with {@code from} replaced by {@code to}, or a generated or literal file. */
    static Path profile(String input) throws IOException {
        if (input.startsWith("/")) {
            return Path.of(input);
        }
        if (input.startsWith("{")) {
            return Path.of(BadInputs.files(input, dir));
        }
        String[] edit = input.split(" => ", 2);
        String base = Files.readString(MockNvml.profilesDir().resolve("rtx3060.json"));
        assertThat(base).as("rtx3060.json holds '%s'", edit[0]).contains(edit[0]);
        Path file = Files.createTempFile(dir, "profile", ".json");
        return Files.writeString(file, base.replace(edit[0], edit[1]));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            dev-zero            | /dev/zero                                                | is not a regular file
            a-folder            | /tmp                                                     | is not a regular file
            missing             | /nonexistent/profile.json                                | cannot be read: No such file or directory
            sparse-60MiB        | {sparse-60MiB.bin}                                       | is not valid JSON
            random-bytes        | {random.bin}                                             | is not valid JSON
            not-json            | {garbage.json}                                           | is not valid JSON
            cut-short           | "gpuPercent" => "gpu                                     | is not valid JSON
            negative-memory     | "totalBytes": 12884901888 => "totalBytes": -5           | gpus[0].memory.totalBytes was '-5'
            unknown-field       | "pcieReplayCount" => "pcieReplayCounter"                | gpus[0].pcieReplayCounter was '0' but it is not a field of the profile schema
            bad-uuid            | GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 => GPU-3f1c4b2a | gpus[0].uuid was 'GPU-3f1c4b2a'
            bad-architecture    | "AMPERE" => "TURING2"                                   | gpus[0].architecture was 'TURING2'
            bad-event-name      | "XidCriticalError" => "XidCritical"                     | gpus[0].supportedEvents[1] was 'XidCritical'
            schema-version      | "schemaVersion": 1 => "schemaVersion": 2                | schemaVersion was '2'
            no-gpus-list        | "gpus": [ => "gpus": {"x": [                            | is not valid JSON
            walk-step           | "stepMs": 1000 => "stepMs": -1                          | walk.stepMs was '-1'
            """)
    void aBrokenProfileIsOneLineAndTheNodeStays(String id, String input, String expected) throws IOException {
        Path file = profile(input.strip());
        MOCK.useProfile("rtx3060");

        assertThatThrownBy(() -> MOCK.useProfile(file.toString())).as(id).isInstanceOf(IllegalStateException.class);

        assertThat(MOCK.lastError()).as(id).startsWith(file.toString()).contains(expected.strip()).doesNotContain("\n");
        try (Nvml nvml = Nvml.open()) {
            assertThat(nvml.device(0).uuid()).isEqualTo(GPU);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            unknown-kind        | xyz GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 79        | the event kind 'xyz' is not xid or ecc
            missing-field       | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93           | expected 'xid <uuid> <code>' or 'ecc <uuid> sbe|dbe'
            extra-field         | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 79 80     | has more than three fields
            bad-uuid            | xid GPU-3f1c 79                                        | the uuid 'GPU-3f1c' is not
            negative-xid        | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 -1        | the xid '-1' is not a non-negative number
            xid-overflow        | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 18446744073709551616 | the xid '18446744073709551616' is not
            xid-word            | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 seventy   | the xid 'seventy' is not
            ecc-kind            | ecc GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 tbe       | the ECC kind 'tbe' is not sbe or dbe
            padded-zeros        | xid GPU-3f1c4b2a-9d7e-4a61-b0c5-2e8f6d1a7c93 0000000000000000000000000000000000000000000000000000000000000000000000005 | has a field longer than
            """)
    void aBadEventLineIsSkippedWithOneLine(String id, String line, String expected) {
        assertThat(MOCK.parseEventLine(line.strip())).as(id).isEqualTo(-1);
        assertThat(MOCK.lastError()).as(id).contains(expected.strip()).doesNotContain("\n");
    }
}
