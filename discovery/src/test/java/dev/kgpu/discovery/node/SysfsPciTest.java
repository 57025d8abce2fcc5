package dev.kgpu.discovery.node;

import dev.kgpu.discovery.labels.VgpuScan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class SysfsPciTest {

    @TempDir
    Path root;

    /** A 256-byte configuration space whose capability list is: power management at 0x60, then vendor-specific at 0xc8. */
    static byte[] vgpuConfig(String hostVersion, String hostBranch) {
        byte[] config = new byte[256];
        config[0x06] = 0x10;                 // status: capability list present
        config[0x34] = 0x60;                 // first capability
        config[0x60] = 0x01;                 // power management
        config[0x61] = (byte) 0xc8;          // next
        config[0x62] = 0x08;
        int cap = 0xc8;
        config[cap] = 0x09;                  // vendor specific
        config[cap + 1] = 0x00;              // last in the list
        config[cap + 2] = 0x1b;              // length 27
        config[cap + 3] = 0x56;              // 'V'
        config[cap + 4] = 0x46;              // 'F'
        config[cap + 5] = 0x00;              // record 0: host driver
        config[cap + 6] = 0x16;
        put(config, cap + 7, hostVersion);
        put(config, cap + 17, hostBranch);
        return config;
    }

    static void put(byte[] config, int offset, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, config, offset, bytes.length);
    }

    @Test
    void readsTheClassCode() {
        new FakeSysfs(root).gpu("0000:3b:00.0", 0x030200).gpu("0000:01:00.0", 0x030000);
        SysfsPci sysfs = new SysfsPci(root);

        assertThat(sysfs.pciClass("0000:3b:00.0")).hasValue(0x030200);
        assertThat(sysfs.pciClass("0000:01:00.0")).hasValue(0x030000);
        assertThat(sysfs.pciClass("0000:99:00.0")).isEmpty();
    }

    @Test
    void findsTheVgpuHostDriverOfAGuest() {
        new FakeSysfs(root)
                .function("0000:02:00.0", "0x10de", 0x030200, vgpuConfig("535.104.06", "r535_00"))
                .function("0000:00:1f.0", "0x8086", 0x060100, new byte[64]);

        assertThat(new SysfsPci(root).scanVgpu())
                .isEqualTo(new VgpuScan.Scanned(List.of(new VgpuScan.HostDriver("535.104.06", "r535_00"))));
    }

    @Test
    void bareMetalGpusAreNoVgpu() {
        new FakeSysfs(root).gpu("0000:3b:00.0", 0x030200);

        assertThat(new SysfsPci(root).scanVgpu()).isEqualTo(VgpuScan.none());
    }

    @Test
    void aTruncatedConfigSpaceOrNoSysfsIsUnreadable() {
        assertThat(new SysfsPci(root).scanVgpu()).isInstanceOf(VgpuScan.Unreadable.class);

        new FakeSysfs(root).function("0000:3b:00.0", "0x10de", 0x030200, new byte[64]);
        assertThat(new SysfsPci(root).scanVgpu())
                .isInstanceOfSatisfying(VgpuScan.Unreadable.class, u -> assertThat(u.reason()).contains("privileged"));
    }

    @Test
    void aLoopingCapabilityListEnds() {
        byte[] config = new byte[256];
        config[0x06] = 0x10;
        config[0x34] = 0x40;
        config[0x40] = 0x01;
        config[0x41] = 0x40;                 // points to itself

        assertThat(SysfsPci.vendorCapability(config)).isNull();
    }
}
