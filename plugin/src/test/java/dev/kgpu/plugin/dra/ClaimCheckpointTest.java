package dev.kgpu.plugin.dra;

import dev.kgpu.cdi.DurableFiles;
import dev.kgpu.plugin.node.ClaimRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClaimCheckpointTest {

    @TempDir
    Path dir;

    static PreparedClaim claim(String uid, String device) {
        return new PreparedClaim(new ClaimRef("ml", "claim-" + uid, uid), List.of(new PreparedDevice(List.of("gpu"), "node-1",
                device, "GPU-" + uid, List.of(DraNames.cdiDeviceId(uid, device)))));
    }

    Path file() {
        return dir.resolve("plugins/gpu.nvidia.com/kgpu-checkpoint.json");
    }

    @Test
    void preparedClaimsSurviveAReopenAndAreForgottenWhenUnprepared() throws Exception {
        ClaimCheckpoint checkpoint = ClaimCheckpoint.open(file(), "boot-1");
        assertThat(checkpoint.claims()).isEmpty();
        checkpoint.put(claim("uid-1", "gpu-0"));
        checkpoint.put(claim("uid-2", "gpu-1"));
        assertThat(checkpoint.remove("uid-1")).isTrue();
        assertThat(checkpoint.remove("uid-1")).as("idempotent").isFalse();

        ClaimCheckpoint reopened = ClaimCheckpoint.open(file(), "boot-1");

        assertThat(reopened.recovery()).isEmpty();
        assertThat(reopened.claims()).containsExactly(claim("uid-2", "gpu-1"));
        assertThat(reopened.get("uid-2")).contains(claim("uid-2", "gpu-1"));
        try (Stream<Path> files = Files.list(file().getParent())) {
            assertThat(files).as("no temporary file left").containsExactly(file());
        }
        String json = Files.readString(file());
        assertThat(json).contains("\"kind\" : \"kgpu-dra-checkpoint\"", "\"version\" : 1", "\"checksum\" : \"sha256:",
                "\"nodeBootId\" : \"boot-1\"", "\"uid-2\"");
    }

    @Test
    void aCorruptCheckpointIsMovedAsideInOneLineAndTheDriverStartsEmpty() throws Exception {
        ClaimCheckpoint checkpoint = ClaimCheckpoint.open(file(), "boot-1");
        checkpoint.put(claim("uid-1", "gpu-0"));
        String good = Files.readString(file());

        for (String broken : List.of("{\"kind\":", good.replace("gpu-0", "gpu-7"), good.replace("\"version\" : 1", "\"version\" : 2"),
                "[]")) {
            Files.writeString(file(), broken, StandardCharsets.UTF_8);

            ClaimCheckpoint reopened = ClaimCheckpoint.open(file(), "boot-1");

            assertThat(reopened.claims()).as(broken).isEmpty();
            assertThat(reopened.recovery()).hasValueSatisfying(line -> assertThat(line)
                    .startsWith("checkpoint " + file() + " was unusable: ")
                    .contains("moved to " + file() + ".corrupt")
                    .doesNotContain("\n"));
            assertThat(Files.readString(dir.resolve(file() + ".corrupt"))).isEqualTo(broken);
            assertThat(file()).doesNotExist();
        }
    }

    @Test
    void aChecksumThatDoesNotMatchIsNamed() throws IOException, CheckpointException {
        ClaimCheckpoint.open(file(), "").put(claim("uid-1", "gpu-0"));
        Files.writeString(file(), Files.readString(file()).replace("claim-uid-1", "claim-uid-9"));

        assertThat(ClaimCheckpoint.open(file(), "").recovery().orElseThrow()).contains("checksum was 'sha256:")
                .contains("but the data sums to 'sha256:");
    }

    @Test
    void anEarlierBootsClaimsAreForgottenAndAnUnknownBootKeepsThem() throws Exception {
        ClaimCheckpoint.open(file(), "boot-1").put(claim("uid-1", "gpu-0"));

        assertThat(ClaimCheckpoint.open(file(), "").claims()).as("boot unknown").hasSize(1);
        ClaimCheckpoint afterReboot = ClaimCheckpoint.open(file(), "boot-2");
        assertThat(afterReboot.claims()).isEmpty();
        assertThat(afterReboot.recovery().orElseThrow()).contains("written in an earlier boot (boot-1, now boot-2)");
        afterReboot.put(claim("uid-2", "gpu-1"));
        assertThat(ClaimCheckpoint.open(file(), "boot-2").claims()).containsExactly(claim("uid-2", "gpu-1"));
    }

    @Test
    void withoutABootIdTheFileKeepsTheOneItHadSoALaterBootIdStillTellsAnEarlierBoot() throws Exception {
        ClaimCheckpoint.open(file(), "boot-1").put(claim("uid-1", "gpu-0"));

        ClaimCheckpoint unknown = ClaimCheckpoint.open(file(), "");
        unknown.put(claim("uid-2", "gpu-1"));

        assertThat(Files.readString(file())).as("not overwritten with an empty id").contains("\"nodeBootId\" : \"boot-1\"");
        assertThat(ClaimCheckpoint.open(file(), "boot-2").claims()).as("after a reboot").isEmpty();
    }

    /**
     * A change waits for the disk only when a later boot could not tell this boot's claims apart: with this boot's id
     * known, a power loss (a new boot) makes the next start forget them whatever the file holds, so a change must only
     * survive the plugin's crash; with none read (not even one taken from the file), it must survive a power loss.
     */
    @Test
    void changesWaitForTheDiskOnlyWhenThisBootsIdIsUnknown() throws Exception {
        assertThat(ClaimCheckpoint.open(file(), "boot-1").survives()).isEqualTo(DurableFiles.Survives.PROCESS_CRASH);
        ClaimCheckpoint.open(file(), "boot-1").put(claim("uid-1", "gpu-0"));
        assertThat(ClaimCheckpoint.open(file(), "boot-2").survives()).as("an earlier boot's file").isEqualTo(
                DurableFiles.Survives.PROCESS_CRASH);

        Files.writeString(file(), "{\"kind\": \"kgpu-dra-ch");
        ClaimCheckpoint torn = ClaimCheckpoint.open(file(), "boot-2");
        assertThat(torn.claims()).as("a file a power loss tore").isEmpty();
        assertThat(torn.survives()).isEqualTo(DurableFiles.Survives.PROCESS_CRASH);

        ClaimCheckpoint.open(file(), "boot-2").put(claim("uid-1", "gpu-0"));
        assertThat(ClaimCheckpoint.open(file(), "").survives()).as("the boot id taken from the file only").isEqualTo(
                DurableFiles.Survives.POWER_LOSS);
        Files.delete(file());
        assertThat(ClaimCheckpoint.open(file(), "").survives()).as("no file, no boot id").isEqualTo(
                DurableFiles.Survives.POWER_LOSS);
    }

    @Test
    void aFileWrittenWithoutABootIdAdoptsThisBootsOnce() throws Exception {
        ClaimCheckpoint.open(file(), "").put(claim("uid-1", "gpu-0"));
        assertThat(Files.readString(file())).contains("\"nodeBootId\" : \"\"");

        ClaimCheckpoint adopted = ClaimCheckpoint.open(file(), "boot-1");
        assertThat(adopted.claims()).containsExactly(claim("uid-1", "gpu-0"));
        adopted.put(claim("uid-2", "gpu-1"));

        assertThat(Files.readString(file())).contains("\"nodeBootId\" : \"boot-1\"");
        assertThat(ClaimCheckpoint.open(file(), "boot-2").claims()).as("now an earlier boot's").isEmpty();
    }

    @Test
    void aCheckpointThatCannotBeWrittenFailsInOneLineAndKeepsTheOldState() throws Exception {
        Path folder = dir.resolve("driver");
        ClaimCheckpoint checkpoint = ClaimCheckpoint.open(folder.resolve("kgpu-checkpoint.json"), "");
        checkpoint.put(claim("uid-1", "gpu-0"));
        Files.delete(folder.resolve("kgpu-checkpoint.json"));
        Files.delete(folder);
        Files.writeString(folder, "a file where the driver's folder was");

        assertThatThrownBy(() -> checkpoint.put(claim("uid-2", "gpu-1"))).isInstanceOf(CheckpointException.class)
                .hasMessageStartingWith("checkpoint " + folder.resolve("kgpu-checkpoint.json") + " could not be written: ");
        assertThat(checkpoint.claims()).containsExactly(claim("uid-1", "gpu-0"));
    }
}
