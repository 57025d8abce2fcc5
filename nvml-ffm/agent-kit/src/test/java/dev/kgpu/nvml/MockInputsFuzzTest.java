package dev.kgpu.nvml;

import dev.kgpu.agent.testing.Fuzz;
import dev.kgpu.nvml.mock.MockNvml;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.quicktheories.core.Gen;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mock's inputs fuzzed through its real C parsers: an events-file line is read exactly as its documented
 * grammar says (checked against a reference written from the README, so a field the parser would cut short
 * is caught), and a shipped profile cut and corrupted either loads or is refused with one line naming the
 * file, the node before it staying in place; neither ever crashes the process.
 */
class MockInputsFuzzTest {

    static final MockNvml MOCK = MockNvml.load();
    static final String GPU = "GPU-7c1d5a3e-2b8f-4e60-9a14-c3d2e1f0a581";
    static final Pattern UUID = Pattern.compile("(GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    @TempDir
    Path dir;

    @AfterEach
    void resetMock() {
        MOCK.reset();
    }

    /** The README's grammar: 1 an event, 0 blank or comment, -1 skipped. */
    static int reference(String line) {
        int hash = line.indexOf('#');
        String body = hash < 0 ? line : line.substring(0, hash);
        String[] fields = body.strip().isEmpty() ? new String[0] : body.strip().split("[ \t\r]+");
        if (fields.length == 0) {
            return 0;
        }
        if (fields.length != 3 || !UUID.matcher(fields[1]).matches()) {
            return -1;
        }
        return switch (fields[0]) {
            case "xid" -> xid(fields[2]) ? 1 : -1;
            case "ecc" -> fields[2].equals("sbe") || fields[2].equals("dbe") ? 1 : -1;
            default -> -1;
        };
    }

    /** C's strtoull(text, 0) taking the whole field: decimal, 0x hex or 0 octal, an optional +, within 64 bits. */
    static boolean xid(String text) {
        String s = text.startsWith("+") ? text.substring(1) : text;
        int radix = 10;
        if (s.length() > 2 && (s.startsWith("0x") || s.startsWith("0X"))) {
            radix = 16;
            s = s.substring(2);
        } else if (s.length() > 1 && s.startsWith("0")) {
            radix = 8;
            s = s.substring(1);
        }
        if (s.isEmpty() || s.startsWith("+") || s.startsWith("-")) {
            return false;
        }
        try {
            return new BigInteger(s, radix).bitLength() <= 64;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Test
    void eventLinesAreReadAsTheirGrammarSays() {
        Gen<String> line = Fuzz.tokens(List.of("xid", "ecc", "XID", "xi", "xidd", GPU, GPU.toUpperCase().replace("GPU-", "GPU-"),
                "MIG-" + GPU.substring(4), GPU.substring(0, 39), GPU + "0", "gpu" + GPU.substring(3), "79", "0x4f", "0X4F",
                "010", "08", "+5", "-1", "0", "18446744073709551615", "18446744073709551616", "0".repeat(70) + "5",
                "9".repeat(70), "sbe", "dbe", "SBE", "#", "# comment", " ", " ", "  ", "\t", "\r", "x".repeat(100),
                "\u00e9", "\\", "\"", "0x", "1e3"), 0, 7);
        Fuzz.theory(5_000).forAll(line).checkAssert(text -> {
            int parsed = MOCK.parseEventLine(text);
            assertThat(parsed).as("'%s' (%s)", text, MOCK.lastError()).isEqualTo(reference(text));
            if (parsed < 0) {
                assertThat(MOCK.lastError()).startsWith("mockNvmlParseEventLine: ").doesNotContain("\n");
            }
        });
    }

    @Test
    void cutAndCorruptedProfilesLoadOrAreRefusedWithOneLineAndTheNodeStays() throws IOException {
        List<String> shipped = List.of("rtx3060", "dgx-a100", "mig-mixed").stream()
                .map(name -> read(MockNvml.profilesDir().resolve(name + ".json"))).toList();
        Path file = dir.resolve("fuzzed.json");
        MOCK.useProfile("rtx3060");
        Gen<String> profile = Fuzz.mutated(shipped, List.of("", "0", "-1", "null", "\"\"", "[]", "{}", ",", ":", "\"",
                "1e400", "18446744073709551616", "true", "\\u0000", "\\", "{\"repeat\": 1025}", "99999999999999999999"), 6);

        Fuzz.theory(300).forAll(profile).checkAssert(json -> {
            int before;
            try (Nvml nvml = Nvml.open()) {
                before = nvml.deviceCount();
            }
            write(file, json);
            try {
                MOCK.useProfile(file.toString());
            } catch (IllegalStateException refused) {
                assertThat(MOCK.lastError()).startsWith(file.toString()).doesNotContain("\n");
                try (Nvml nvml = Nvml.open()) {
                    assertThat(nvml.deviceCount()).as("the node before stays").isEqualTo(before);
                }
                return;
            }
            try (Nvml nvml = Nvml.open()) {
                assertThat(nvml.deviceCount()).isNotNegative();
            }
        });
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
