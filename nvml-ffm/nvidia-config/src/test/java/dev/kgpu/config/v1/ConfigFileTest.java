package dev.kgpu.config.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.ValidationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigFileTest {

    private static final String GPU_UUID = "GPU-b1028956-cfa2-0990-bf4a-5da9abb51763";

    static String resource(String name) {
        try (InputStream in = ConfigFileTest.class.getResourceAsStream("/config/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource /config/" + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Config parse(String yaml) {
        return ConfigFile.parse(yaml, "test.yaml").config();
    }

    static ResourceName name(String name) {
        return ResourceName.of(name);
    }

    @Test
    void emptyFileMeansEveryDefault() {
        Config defaults = Config.defaults();
        assertThat(parse("")).isEqualTo(defaults);
        assertThat(parse("# nothing but a comment\n")).isEqualTo(defaults);
        assertThat(parse("version: v1\n")).isEqualTo(defaults);
        assertThat(parse("version: \"\"\n")).isEqualTo(defaults);
        assertThat(parse("~\n")).isEqualTo(defaults);
        assertThat(parse("flags:\nsharing:\n")).isEqualTo(defaults);
    }

    @Test
    void defaultsAreNvidias() {
        Flags flags = Config.defaults().flags();
        assertThat(flags.migStrategy()).isEqualTo(MigStrategy.NONE);
        assertThat(flags.failOnInitError()).isTrue();
        assertThat(flags.mpsRoot()).isEmpty();
        assertThat(flags.nvidiaDriverRoot()).isEqualTo("/");
        assertThat(flags.nvidiaDevRoot()).isEqualTo("/");
        assertThat(flags.gdrcopyEnabled()).isFalse();
        assertThat(flags.gdsEnabled()).isFalse();
        assertThat(flags.mofedEnabled()).isFalse();
        assertThat(flags.useNodeFeatureAPI()).isTrue();
        assertThat(flags.deviceDiscoveryStrategy()).isEqualTo(DeviceDiscoveryStrategy.AUTO);
        assertThat(flags.plugin()).isEqualTo(new PluginFlags(false, Set.of(DeviceListStrategy.ENVVAR),
                DeviceIdStrategy.UUID, "cdi.k8s.io/", "/usr/bin/nvidia-ctk", "/driver-root", AllocationPolicy.DISTRIBUTED));
        assertThat(flags.gfd()).isEqualTo(new GfdFlags(false, false, new SleepInterval.Every(Duration.ofSeconds(60)),
                "/etc/kubernetes/node-feature-discovery/features.d/gfd", "/sys/class/dmi/id/product_name"));
        Config config = Config.defaults();
        assertThat(config.version()).isEqualTo("v1");
        assertThat(config.sharing().strategy()).isEqualTo(SharingStrategy.NONE);
        assertThat(config.sharing().active()).isEmpty();
        assertThat(config.resources()).isEqualTo(Resources.NONE);
        assertThat(config.imex()).isEqualTo(Imex.NONE);
    }

    record Sample(String description, String file, Consumer<Config> check) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Sample> samples() {
        return Stream.of(
                new Sample("README config0: the documented defaults written out", "dp-example-config0.yaml",
                        c -> assertThat(c).isEqualTo(Config.defaults())),
                new Sample("README config1: mixed MIG", "dp-example-config1.yaml", c -> {
                    assertThat(c.flags().migStrategy()).isEqualTo(MigStrategy.MIXED);
                    assertThat(c.flags().plugin().deviceListStrategy()).containsExactly(DeviceListStrategy.ENVVAR);
                }),
                new Sample("README time-slicing: 10 replicas, same name, requests > 1 allowed", "time-slicing.yaml", c -> {
                    assertThat(c.sharing().strategy()).isEqualTo(SharingStrategy.TIME_SLICING);
                    ReplicatedResources ts = c.sharing().timeSlicing().orElseThrow();
                    assertThat(ts.renameByDefault()).isFalse();
                    assertThat(ts.failRequestsGreaterThanOne()).isFalse();
                    assertThat(ts.resources()).containsExactly(
                            new ReplicatedResource(name("gpu"), Optional.empty(), ReplicatedDevices.ALL, 10));
                    assertThat(ts.resources().getFirst().advertisedName()).isEqualTo(name("nvidia.com/gpu"));
                }),
                new Sample("README time-slicing with renameByDefault: gpu.shared", "time-slicing-rename.yaml", c -> {
                    ReplicatedResources ts = c.sharing().active().orElseThrow();
                    assertThat(ts.failRequestsGreaterThanOne()).isTrue();
                    assertThat(ts.resources().getFirst().advertisedName()).isEqualTo(name("nvidia.com/gpu.shared"));
                }),
                new Sample("README MPS: failRequestsGreaterThanOne defaults to true", "mps.yaml", c -> {
                    assertThat(c.sharing().strategy()).isEqualTo(SharingStrategy.MPS);
                    ReplicatedResources mps = c.sharing().mps().orElseThrow();
                    assertThat(mps.failRequestsGreaterThanOne()).isTrue();
                    assertThat(mps.resources().getFirst().advertisedName()).isEqualTo(name("gpu"));
                    assertThat(c.flags().mpsRoot()).contains("/run/nvidia/mps");
                }),
                new Sample("README MPS with renameByDefault", "mps-rename.yaml", c -> {
                    ReplicatedResources mps = c.sharing().active().orElseThrow();
                    assertThat(mps.renameByDefault()).isTrue();
                    assertThat(mps.failRequestsGreaterThanOne()).isTrue();
                    assertThat(mps.resources().getFirst().rename()).contains(name("gpu.shared"));
                }),
                new Sample("GPU Operator: time-slicing full GPUs and MIG profiles under mixed", "gpu-operator-time-slicing.yaml", c -> {
                    assertThat(c.flags().migStrategy()).isEqualTo(MigStrategy.MIXED);
                    assertThat(c.sharing().active().orElseThrow().resources())
                            .extracting(r -> r.name().value() + "x" + r.replicas())
                            .containsExactly("nvidia.com/a100x8", "nvidia.com/mig-1g.5gbx2", "nvidia.com/mig-2g.10gbx2",
                                    "nvidia.com/mig-3g.20gbx3", "nvidia.com/mig-7g.40gbx7");
                }),
                new Sample("per-device sharing: rename and devices are honoured", "per-device-sharing.yaml", c -> {
                    List<ReplicatedResource> resources = c.sharing().active().orElseThrow().resources();
                    assertThat(resources).containsExactly(
                            new ReplicatedResource(name("gpu"), Optional.of(name("gpu-small")),
                                    new ReplicatedDevices.DeviceList(List.of(new DeviceRef.GpuIndex(0))), 4),
                            new ReplicatedResource(name("gpu"), Optional.of(name("gpu-large")),
                                    new ReplicatedDevices.DeviceList(List.of(new DeviceRef.GpuIndex(1),
                                            new DeviceRef.GpuUuid(GPU_UUID))), 2),
                            new ReplicatedResource(name("mig-1g.5gb"), Optional.empty(),
                                    new ReplicatedDevices.DeviceList(List.of(new DeviceRef.MigIndex(0, 0),
                                            new DeviceRef.MigUuid("MIG-" + GPU_UUID + "/1/0"),
                                            new DeviceRef.MigUuid("MIG-30d00c09-8a98-59b8-8c1a-1d64b4ec3ad2"))), 3),
                            new ReplicatedResource(name("mig-2g.10gb"), Optional.empty(), new ReplicatedDevices.Count(2), 2));
                }),
                new Sample("every field away from its default", "full.yaml", c -> {
                    Flags f = c.flags();
                    assertThat(f).isEqualTo(new Flags(MigStrategy.SINGLE, false, Optional.of("/run/nvidia/mps"),
                            "/run/nvidia/driver", "/dev-root", true, true, true, false, DeviceDiscoveryStrategy.NVML,
                            new PluginFlags(true, Set.of(DeviceListStrategy.VOLUME_MOUNTS, DeviceListStrategy.CDI_CRI),
                                    DeviceIdStrategy.INDEX, "cdi.example.com/", "/usr/local/bin/nvidia-ctk", "/host-driver",
                                    AllocationPolicy.PACKED),
                            new GfdFlags(true, true, new SleepInterval.Every(Duration.ofSeconds(90)), "/tmp/gfd-features",
                                    "/tmp/product_name")));
                    assertThat(firstMatch(c.resources().gpus(), "A100-SXM4-40GB").orElseThrow().name()).isEqualTo(name("a100"));
                    assertThat(firstMatch(c.resources().gpus(), "H100 80GB HBM3").orElseThrow().name()).isEqualTo(name("gpu"));
                    assertThat(firstMatch(c.resources().mig(), "1g.5gb").orElseThrow().name()).isEqualTo(name("mig-small"));
                    assertThat(firstMatch(c.resources().mig(), "1g.5gb+me")).isEmpty();
                    assertThat(c.imex()).isEqualTo(new Imex(List.of(0), true));
                }));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void readsDocumentedSamples(Sample sample) {
        ConfigFile file = ConfigFile.parse(resource(sample.file()), sample.file());
        assertThat(file.warnings()).isEmpty();
        sample.check().accept(file.config());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void printsJsonThatReadsBackToTheSameConfig(Sample sample) {
        Config config = ConfigFile.parse(resource(sample.file()), sample.file()).config();
        String json = ConfigJson.toJson(config, ConfigJson.Blocks.ALL);
        ConfigFile again = ConfigFile.parse(json, "json");
        assertThat(again.warnings()).isEmpty();
        assertThat(again.config()).isEqualTo(config);
    }

    record Failure(String description, String yaml, List<String> messages) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Failure fails(String description, String yaml, String... messages) {
        return new Failure(description, yaml, List.of(messages));
    }

    static String sharing(String block, String resources) {
        return "sharing:\n  " + block + ":\n    resources:\n" + resources;
    }

    static Stream<Failure> failures() {
        String longName = "a".repeat(53); // nvidia.com/ + 53 = 64 characters
        String longestName = "b".repeat(52); // exactly 63, but not with .shared
        return Stream.of(
                fails("unknown version", "version: v2\n",
                        "version was 'v2' but it must be v1 (or empty, which means v1)"),
                fails("numeric version", "version: 1\n",
                        "version was '1' but it must be v1 (or empty, which means v1)"),
                fails("unknown MIG strategy", "flags:\n  migStrategy: foo\n",
                        "flags.migStrategy was 'foo' but it must be one of none, single, mixed"),
                fails("MIG strategy is case-sensitive as in NVIDIA", "flags:\n  migStrategy: Mixed\n",
                        "flags.migStrategy was 'Mixed' but it must be one of none, single, mixed"),
                fails("boolean that is no boolean", "flags:\n  failOnInitError: maybe\n",
                        "flags.failOnInitError was 'maybe' but it must be a boolean (true or false), not a string"),
                fails("quoted boolean, refused as NVIDIA refuses it", "flags:\n  failOnInitError: \"true\"\n",
                        "flags.failOnInitError was 'true' but it must be a boolean, not a quoted string; write it without quotes"),
                fails("boolean given a list", "flags:\n  gdsEnabled: [true]\n",
                        "flags.gdsEnabled was '[true]' but it must be a boolean (true or false), not a list"),
                fails("unknown device list strategy in a list", "flags:\n  plugin:\n    deviceListStrategy: [envvar, foo]\n",
                        "flags.plugin.deviceListStrategy was '[envvar, foo]' but it must list only envvar, volume-mounts,"
                                + " cdi-annotations, cdi-cri, but lists 'foo'"),
                fails("unknown device list strategy as a string", "flags:\n  plugin:\n    deviceListStrategy: cdi\n",
                        "flags.plugin.deviceListStrategy was 'cdi' but it must list only envvar, volume-mounts,"
                                + " cdi-annotations, cdi-cri, but lists 'cdi'"),
                fails("empty device list strategy", "flags:\n  plugin:\n    deviceListStrategy: []\n",
                        "flags.plugin.deviceListStrategy was '[]' but it must name at least one of envvar, volume-mounts,"
                                + " cdi-annotations, cdi-cri"),
                fails("device list strategy as a mapping", "flags:\n  plugin:\n    deviceListStrategy: {envvar: true}\n",
                        "flags.plugin.deviceListStrategy was '{envvar: true}' but it must be a string or a list of strings,"
                                + " not a mapping"),
                fails("unknown device ID strategy", "flags:\n  plugin:\n    deviceIDStrategy: serial\n",
                        "flags.plugin.deviceIDStrategy was 'serial' but it must be one of uuid, index"),
                fails("unknown allocation policy", "flags:\n  plugin:\n    sharedDevicesAllocationPolicy: spread\n",
                        "flags.plugin.sharedDevicesAllocationPolicy was 'spread' but it must be one of distributed, packed"),
                fails("unknown discovery strategy", "flags:\n  deviceDiscoveryStrategy: cuda\n",
                        "flags.deviceDiscoveryStrategy was 'cuda' but it must be one of auto, nvml, tegra, vfio"),
                fails("relative driver root", "flags:\n  nvidiaDriverRoot: run/nvidia/driver\n",
                        "flags.nvidiaDriverRoot was 'run/nvidia/driver' but it must be an absolute path"),
                fails("empty driver root", "flags:\n  nvidiaDriverRoot: \"\"\n",
                        "flags.nvidiaDriverRoot was '' but it must be an absolute path"),
                fails("relative MPS root", "flags:\n  mpsRoot: mps\n",
                        "flags.mpsRoot was 'mps' but it must be an absolute path (or empty for none)"),
                fails("CDI prefix without its slash", "flags:\n  plugin:\n    cdiAnnotationPrefix: cdi.k8s.io\n",
                        "flags.plugin.cdiAnnotationPrefix was 'cdi.k8s.io' but it must be a DNS subdomain followed by '/',"
                                + " such as cdi.k8s.io/, to make valid annotation keys"),
                fails("quoted bare number for sleepInterval (Go's ParseDuration needs a unit)",
                        "flags:\n  gfd:\n    sleepInterval: \"60\"\n",
                        "flags.gfd.sleepInterval was '60' but it must be a Go duration such as 60s, 1m30s or 500ms, or"
                                + " 'infinite' (time: missing unit in duration \"60\")"),
                fails("sleepInterval in days", "flags:\n  gfd:\n    sleepInterval: 1d\n",
                        "flags.gfd.sleepInterval was '1d' but it must be a Go duration such as 60s, 1m30s or 500ms, or"
                                + " 'infinite' (time: unknown unit \"d\" in duration \"1d\")"),
                fails("flags that are no mapping", "flags: none\n",
                        "flags was 'none' but it must be a mapping of migStrategy, failOnInitError, mpsRoot,"
                                + " nvidiaDriverRoot, nvidiaDevRoot, gdrcopyEnabled, gdsEnabled, mofedEnabled,"
                                + " useNodeFeatureAPI, deviceDiscoveryStrategy, plugin, gfd"),
                fails("the same field twice, once in another case", "flags:\n  migStrategy: none\n  MigStrategy: mixed\n",
                        "flags.migStrategy was 'mixed' but it is given twice, as 'migStrategy' and as 'MigStrategy'; give it once"),
                fails("the same field twice", "flags:\n  gfd:\n    oneshot: true\n    oneshot: false\n",
                        "flags.gfd.oneshot was 'false' but it is given twice, as 'oneshot' and as 'oneshot'; give it once"),
                fails("one replica", sharing("timeSlicing", "    - name: nvidia.com/gpu\n      replicas: 1\n"),
                        "sharing.timeSlicing.resources[0].replicas was '1' but it must be at least 2"),
                fails("negative replicas under MPS", sharing("mps", "    - name: gpu\n      replicas: -4\n"),
                        "sharing.mps.resources[0].replicas was '-4' but it must be at least 2"),
                fails("replicas missing", sharing("timeSlicing", "    - name: nvidia.com/gpu\n"),
                        "sharing.timeSlicing.resources[0].replicas was 'null' but it must be set to the number of replicas,"
                                + " at least 2"),
                fails("replicas quoted", sharing("timeSlicing", "    - name: gpu\n      replicas: \"2\"\n"),
                        "sharing.timeSlicing.resources[0].replicas was '2' but it must be an integer, not a quoted string;"
                                + " write it without quotes"),
                fails("fractional replicas", sharing("timeSlicing", "    - name: gpu\n      replicas: 2.5\n"),
                        "sharing.timeSlicing.resources[0].replicas was '2.5' but it must be an integer, not a number"),
                fails("name missing", sharing("timeSlicing", "    - replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].name was 'null' but it must be set to the resource to share,"
                                + " such as nvidia.com/gpu"),
                fails("name with capitals and underscore, and one replica: both reported",
                        sharing("mps", "    - name: GPU_Big\n      replicas: 1\n"),
                        "sharing.mps.resources[0].name was 'GPU_Big' but it must be a DNS subdomain after 'nvidia.com/':"
                                + " lower-case letters, digits, '-' and '.', starting and ending with a letter or digit",
                        "sharing.mps.resources[0].replicas was '1' but it must be at least 2"),
                fails("name of another vendor gets the prefix and fails", sharing("timeSlicing",
                                "    - name: example.com/gpu\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].name was 'example.com/gpu' but it must be a DNS subdomain after"
                                + " 'nvidia.com/': lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"),
                fails("name longer than 63 characters", sharing("timeSlicing", "    - name: " + longName + "\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].name was '" + longName + "' but it must be at most 63 characters"
                                + " with the 'nvidia.com/' prefix, but 'nvidia.com/" + longName + "' has 64"),
                fails("renameByDefault pushes the name past 63 characters",
                        "sharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n    - name: " + longestName
                                + "\n      replicas: 2\n",
                        "sharing.timeSlicing.resources[0].name was 'nvidia.com/" + longestName + "' but it must leave room"
                                + " for the '.shared' suffix that renameByDefault adds: the renamed resource must be at most"
                                + " 63 characters with the 'nvidia.com/' prefix, but 'nvidia.com/" + longestName
                                + ".shared' has 70"),
                fails("invalid rename", sharing("timeSlicing", "    - name: gpu\n      rename: Shared!\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].rename was 'Shared!' but it must be a DNS subdomain after"
                                + " 'nvidia.com/': lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"),
                fails("sharing block without resources", "sharing:\n  timeSlicing:\n    renameByDefault: true\n",
                        "sharing.timeSlicing.resources was 'null' but it must list at least one resource to share"),
                fails("sharing block with no resources", "sharing:\n  mps:\n    resources: []\n",
                        "sharing.mps.resources was '[]' but it must list at least one resource to share"),
                fails("sharing block that is empty", "sharing:\n  timeSlicing: {}\n",
                        "sharing.timeSlicing.resources was 'null' but it must list at least one resource to share"),
                fails("bad failRequestsGreaterThanOne", "sharing:\n  mps:\n    failRequestsGreaterThanOne: yes please\n"
                                + "    resources:\n    - name: gpu\n      replicas: 2\n",
                        "sharing.mps.failRequestsGreaterThanOne was 'yes please' but it must be a boolean (true or false),"
                                + " not a string"),
                fails("devices as another word", sharing("timeSlicing", "    - name: gpu\n      devices: some\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].devices was 'some' but it must be 'all', a positive count of"
                                + " devices, or a list of GPU indices, MIG indices ('0:1') and GPU or MIG UUIDs"),
                fails("devices as a quoted count", sharing("timeSlicing", "    - name: gpu\n      devices: \"2\"\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].devices was '2' but it must be 'all', a positive count of"
                                + " devices, or a list of GPU indices, MIG indices ('0:1') and GPU or MIG UUIDs"),
                fails("zero devices", sharing("timeSlicing", "    - name: gpu\n      devices: 0\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].devices was '0' but it must be a positive count of devices, 'all'"
                                + " or a list of devices"),
                fails("malformed UUID and negative index, each reported",
                        sharing("timeSlicing", "    - name: gpu\n      devices: [GPU-UUID, -1, \"1:x\"]\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].devices[0] was 'GPU-UUID' but it must be a GPU index (0), a MIG"
                                + " index ('0:1'), a GPU UUID (GPU-<uuid>) or a MIG UUID (MIG-<uuid> or MIG-GPU-<uuid>/<gi>/<ci>)",
                        "sharing.timeSlicing.resources[0].devices[1] was '-1' but it must not be negative",
                        "sharing.timeSlicing.resources[0].devices[2] was '1:x' but it must be a GPU index (0), a MIG"
                                + " index ('0:1'), a GPU UUID (GPU-<uuid>) or a MIG UUID (MIG-<uuid> or MIG-GPU-<uuid>/<gi>/<ci>)"),
                fails("devices left empty (NVIDIA's decoder reads null as '')",
                        sharing("timeSlicing", "    - name: gpu\n      devices:\n      replicas: 2\n"),
                        "sharing.timeSlicing.resources[0].devices was '' but it must be 'all', a positive count of"
                                + " devices, or a list of devices (NVIDIA's decoder refuses an empty value); leave it out"
                                + " for all"),
                fails("a resource entry that is a string", sharing("mps", "    - nvidia.com/gpu\n"),
                        "sharing.mps.resources[0] was 'nvidia.com/gpu' but it must be a mapping of name, rename, devices,"
                                + " replicas"),
                fails("custom resource without pattern", "resources:\n  gpus:\n  - name: a100\n",
                        "resources.gpus[0].pattern was 'null' but it must be set to a device name pattern such as '*' or 'A100*'"),
                fails("custom resource with a bad name", "resources:\n  mig:\n  - pattern: 1g.5gb\n    name: Small\n",
                        "resources.mig[0].name was 'Small' but it must be a DNS subdomain after 'nvidia.com/': lower-case"
                                + " letters, digits, '-' and '.', starting and ending with a letter or digit"),
                fails("IMEX channel other than 0", "imex:\n  channelIDs: [1]\n",
                        "imex.channelIDs was '[1]' but it must be [] or [0], the only IMEX channels supported"),
                fails("IMEX channel as a scalar", "imex:\n  channelIDs: 0\n",
                        "imex.channelIDs was '0' but it must be a list of integers, not an integer"),
                fails("a file that is a list", "- flags\n",
                        "test.yaml was '[flags]' but it must be a YAML mapping of version, flags, resources, sharing, imex"),
                fails("merge keys", "base: &base\n  migStrategy: mixed\nflags:\n  <<: *base\n",
                        "test.yaml was 'line 4, column 3: <<: *base' but it uses a merge key (<<), which kgpu does not"
                                + " support; write the fields out"),
                fails("every failure at once, in file order",
                        "version: v2\nflags:\n  migStrategy: foo\n" + sharing("timeSlicing", "    - name: gpu\n      replicas: 1\n"),
                        "version was 'v2' but it must be v1 (or empty, which means v1)",
                        "flags.migStrategy was 'foo' but it must be one of none, single, mixed",
                        "sharing.timeSlicing.resources[0].replicas was '1' but it must be at least 2"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("failures")
    void reportsEveryFailureWithPathAndValue(Failure test) {
        assertThatThrownBy(() -> ConfigFile.parse(test.yaml(), "test.yaml"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> {
                    assertThat(e.failures()).extracting(ValidationFailure::message)
                            .containsExactlyElementsOf(test.messages());
                    assertThat(e.getMessage()).isEqualTo("invalid configuration: " + String.join("; ", test.messages()));
                    assertThat(e.exitCode()).isEqualTo(1);
                });
    }

    @Test
    void namesTheLineOfASyntaxError() {
        assertThatThrownBy(() -> ConfigFile.parse("version: v1\nflags:\n  migStrategy: [none\n", "config.yaml"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures()).singleElement()
                        .satisfies(f -> {
                            assertThat(f.property()).isEqualTo("config.yaml");
                            assertThat(f.value()).startsWith("line 4");
                            assertThat(f.reason()).startsWith("is not valid YAML: ");
                        }));
    }

    @Test
    void refusesRecursiveAnchorsWithoutLooping() {
        assertThatThrownBy(() -> ConfigFile.parse("flags: &a\n  plugin: *a\n", "loop.yaml"))
                .isInstanceOf(InvalidConfigException.class)
                .hasMessageStartingWith("invalid configuration: loop.yaml was");
    }

    @Test
    void countsNodesAsAliasesExpandThemAndRefusesPastTheBudget() {
        // 16 levels of three aliases each (48, under the alias limit) name 3^16 copies of the first list
        StringBuilder bomb = new StringBuilder("flags:\n  a0: &a0 [x, x, x]\n");
        for (int level = 1; level <= 16; level++) {
            bomb.append("  a").append(level).append(": &a").append(level).append(" [*a").append(level - 1)
                    .append(", *a").append(level - 1).append(", *a").append(level - 1).append("]\n");
        }
        assertThatThrownBy(() -> ConfigFile.parse(bomb.toString(), "bomb.yaml"))
                .isInstanceOfSatisfying(InvalidConfigException.class, e -> assertThat(e.failures()).singleElement()
                        .satisfies(f -> {
                            assertThat(f.property()).isEqualTo("bomb.yaml");
                            assertThat(f.value()).startsWith("line ");
                            assertThat(f.reason()).startsWith("expands to more than " + YamlReader.MAX_NODES + " YAML nodes");
                        }));
        // exactly at the budget: the document's mapping, 'flags', its mapping, 'k' and its list, then the items
        String fits = "flags:\n  k:\n" + "  - 1\n".repeat(YamlReader.MAX_NODES - 5);
        assertThat(ConfigFile.parse(fits, "fits.yaml").warnings()).extracting(ConfigWarning::property)
                .containsExactly("flags.k");
        assertThatThrownBy(() -> ConfigFile.parse(fits + "  - 1\n", "over.yaml"))
                .hasMessageContaining("over.yaml was 'line " + (YamlReader.MAX_NODES - 2) + ", column 5: - 1' but it"
                        + " expands to more than " + YamlReader.MAX_NODES + " YAML nodes");
    }

    record Warned(String description, String yaml, List<String> warnings, Consumer<Config> check) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Warned> warnings() {
        return Stream.of(
                new Warned("a misspelt top-level field", "flag:\n  migStrategy: mixed\n",
                        List.of("flag: is not a field of config v1 and is ignored, as NVIDIA's agents ignore it;"
                                + " did you mean 'flags'?"),
                        c -> assertThat(c.flags().migStrategy()).isEqualTo(MigStrategy.NONE)),
                new Warned("a misspelt flag", "flags:\n  migStrategi: mixed\n",
                        List.of("flags.migStrategi: is not a field of config v1 and is ignored, as NVIDIA's agents ignore"
                                + " it; did you mean 'migStrategy'?"),
                        c -> assertThat(c.flags().migStrategy()).isEqualTo(MigStrategy.NONE)),
                new Warned("an unknown field with no near match", "flags:\n  plugin:\n    colour: blue\n",
                        List.of("flags.plugin.colour: is not a field of config v1 and is ignored, as NVIDIA's agents"
                                + " ignore it"),
                        c -> assertThat(c).isEqualTo(Config.defaults())),
                new Warned("another case, matched as Go's decoder matches it", "Flags:\n  MIGSTRATEGY: mixed\n",
                        List.of("flags: is spelled 'Flags'; NVIDIA's decoder matches field names case-insensitively, so"
                                        + " kgpu accepts it, but the documented spelling is 'flags'",
                                "flags.migStrategy: is spelled 'MIGSTRATEGY'; NVIDIA's decoder matches field names"
                                        + " case-insensitively, so kgpu accepts it, but the documented spelling is 'migStrategy'"),
                        c -> assertThat(c.flags().migStrategy()).isEqualTo(MigStrategy.MIXED)),
                new Warned("time-slicing and MPS together: MPS wins",
                        "flags:\n  mpsRoot: /run/nvidia/mps\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n"
                                + "      replicas: 4\n  mps:\n    resources:\n    - name: gpu\n      replicas: 2\n",
                        List.of("sharing.timeSlicing: is ignored because sharing.mps is also configured; MPS wins, as in"
                                + " NVIDIA's plugin, and the sharing strategy is mps"),
                        c -> {
                            assertThat(c.sharing().strategy()).isEqualTo(SharingStrategy.MPS);
                            assertThat(c.sharing().active().orElseThrow().resources().getFirst().replicas()).isEqualTo(2);
                        }),
                new Warned("two YAML documents", "flags:\n  gfd:\n    oneshot: true\n---\nflags:\n  gfd:\n    oneshot: false\n",
                        List.of("test.yaml: holds more than one YAML document; only the first is read, as NVIDIA's agents do"),
                        c -> assertThat(c.flags().gfd().oneshot()).isTrue()),
                new Warned("null values mean unset", "flags:\n  migStrategy: ~\n  plugin:\nsharing:\n  mps: null\n",
                        List.of(), c -> assertThat(c).isEqualTo(Config.defaults())),
                new Warned("YAML 1.1 booleans, as go-yaml v2 reads them",
                        "flags:\n  failOnInitError: no\n  gdsEnabled: on\n  mofedEnabled: y\n  gdrcopyEnabled: YES\n"
                                + "  gfd:\n    oneshot: True\n    noTimestamp: Off\n",
                        List.of(), c -> {
                            assertThat(c.flags().failOnInitError()).isFalse();
                            assertThat(c.flags().gdsEnabled()).isTrue();
                            assertThat(c.flags().mofedEnabled()).isTrue();
                            assertThat(c.flags().gdrcopyEnabled()).isTrue();
                            assertThat(c.flags().gfd().oneshot()).isTrue();
                            assertThat(c.flags().gfd().noTimestamp()).isFalse();
                        }),
                new Warned("string fields take any scalar's text", "flags:\n  nvidiaDriverRoot: /0x10\n  mpsRoot: \"/run/mps\"\n",
                        List.of(), c -> {
                            assertThat(c.flags().nvidiaDriverRoot()).isEqualTo("/0x10");
                            assertThat(c.flags().nvidiaDevRoot()).isEqualTo("/0x10");
                            assertThat(c.flags().mpsRoot()).contains("/run/mps");
                        }),
                new Warned("fields of a sharing entry match case-sensitively, as NVIDIA's own decoder does",
                        sharing("timeSlicing", "    - name: gpu\n      replicas: 2\n      Rename: other\n"),
                        List.of("sharing.timeSlicing.resources[0].Rename: is not a field of config v1 and is ignored, as"
                                + " NVIDIA's agents ignore it; did you mean 'rename'?"),
                        c -> assertThat(c.sharing().active().orElseThrow().resources().getFirst().rename()).isEmpty()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("warnings")
    void acceptsWhatNvidiaAcceptsAndWarns(Warned test) {
        ConfigFile file = ConfigFile.parse(test.yaml(), "test.yaml");
        assertThat(file.warnings()).extracting(ConfigWarning::toString).containsExactlyElementsOf(test.warnings());
        test.check().accept(file.config());
    }

    record Devices(String description, String yaml, ReplicatedDevices expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Devices> devices() {
        return Stream.of(
                new Devices("absent means all", null, ReplicatedDevices.ALL),
                new Devices("all", "all", ReplicatedDevices.ALL),
                new Devices("a count", "3", new ReplicatedDevices.Count(3)),
                new Devices("an index as a number", "[0]", list(new DeviceRef.GpuIndex(0))),
                new Devices("an index as a string", "[\"7\"]", list(new DeviceRef.GpuIndex(7))),
                new Devices("a MIG index, quoted", "[\"0:1\"]", list(new DeviceRef.MigIndex(0, 1))),
                new Devices("a MIG index, plain (no YAML 1.1 base 60, as in go-yaml v2)", "[1:0]",
                        list(new DeviceRef.MigIndex(1, 0))),
                new Devices("a GPU UUID", "[" + GPU_UUID + "]", list(new DeviceRef.GpuUuid(GPU_UUID))),
                new Devices("a MIG UUID", "[MIG-3eb87630-93d5-b2b6-b8ff-9b359caf4ee2]",
                        list(new DeviceRef.MigUuid("MIG-3eb87630-93d5-b2b6-b8ff-9b359caf4ee2"))),
                new Devices("a legacy MIG UUID", "[MIG-GPU-662077db-fa3f-0d8f-9502-21ab0ef058a2/10/0]",
                        list(new DeviceRef.MigUuid("MIG-GPU-662077db-fa3f-0d8f-9502-21ab0ef058a2/10/0"))),
                new Devices("a mixed list, block style", "\n      - 0\n      - \"0:0\"\n      - " + GPU_UUID,
                        list(new DeviceRef.GpuIndex(0), new DeviceRef.MigIndex(0, 0), new DeviceRef.GpuUuid(GPU_UUID))));
    }

    static ReplicatedDevices list(DeviceRef... refs) {
        return new ReplicatedDevices.DeviceList(List.of(refs));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("devices")
    void readsEveryFormOfDevices(Devices test) {
        String entry = "    - name: gpu\n      replicas: 2\n" + (test.yaml() == null ? "" : "      devices: " + test.yaml() + "\n");
        Config config = parse(sharing("timeSlicing", entry));
        ReplicatedDevices devices = config.sharing().active().orElseThrow().resources().getFirst().devices();
        assertThat(devices).isEqualTo(test.expected());
    }

    record Strategies(String description, String yaml, Set<DeviceListStrategy> expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Strategies> deviceListStrategies() {
        return Stream.of(
                new Strategies("a string", "envvar", Set.of(DeviceListStrategy.ENVVAR)),
                new Strategies("a quoted string", "\"cdi-annotations\"", Set.of(DeviceListStrategy.CDI_ANNOTATIONS)),
                new Strategies("a one-element list", "[volume-mounts]", Set.of(DeviceListStrategy.VOLUME_MOUNTS)),
                new Strategies("a flow list", "[envvar, cdi-cri]", Set.of(DeviceListStrategy.ENVVAR, DeviceListStrategy.CDI_CRI)),
                new Strategies("a block list", "\n    - cdi-annotations\n    - cdi-cri",
                        Set.of(DeviceListStrategy.CDI_ANNOTATIONS, DeviceListStrategy.CDI_CRI)),
                new Strategies("a repeated entry", "[envvar, envvar]", Set.of(DeviceListStrategy.ENVVAR)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("deviceListStrategies")
    void readsDeviceListStrategyAsStringOrList(Strategies test) {
        Config config = parse("flags:\n  plugin:\n    deviceListStrategy: " + test.yaml() + "\n");
        assertThat(config.flags().plugin().deviceListStrategy()).isEqualTo(test.expected());
    }

    static Stream<String> sharingNvidiaAccepts() {
        return Stream.of(
                "    - name: gpu\n      devices: []\n      replicas: 2\n",
                "    - name: gpu\n      devices: [0, \"0\"]\n      replicas: 2\n",
                "    - name: gpu\n      replicas: 2\n    - name: gpu\n      devices: 1\n      replicas: 4\n",
                "    - name: gpu\n      devices: [0, 1]\n      replicas: 2\n    - name: gpu\n      rename: gpu-big\n"
                        + "      devices: [1]\n      replicas: 4\n",
                "    - name: gpu\n      rename: shared\n      replicas: 2\n    - name: mig-1g.5gb\n      rename: shared\n"
                        + "      replicas: 2\n",
                // every form of UUID Go's uuid.Parse takes
                "    - name: gpu\n      devices: [GPU-4cf8db2d06c07d701a51e59b25b2c16c, \"GPU-{4cf8db2d-06c0-7d70-1a51-e59b25b2c16c}\","
                        + " GPU-urn:uuid:4cf8db2d-06c0-7d70-1a51-e59b25b2c16c, MIG-4cf8db2d06c07d701a51e59b25b2c16c]\n"
                        + "      replicas: 2\n");
    }

    @ParameterizedTest
    @MethodSource("sharingNvidiaAccepts")
    void acceptsTheSharingEntriesNvidiasDecoderAccepts(String resources) {
        assertThat(parse(sharing("timeSlicing", resources)).sharing().timeSlicing()).isPresent();
    }

    record Sleep(String description, String yaml, SleepInterval expected) {
        @Override
        public String toString() {
            return description;
        }
    }

    static Stream<Sleep> sleepIntervals() {
        return Stream.of(
                new Sleep("seconds", "60s", new SleepInterval.Every(Duration.ofSeconds(60))),
                new Sleep("minutes and seconds", "1m30s", new SleepInterval.Every(Duration.ofSeconds(90))),
                new Sleep("milliseconds", "500ms", new SleepInterval.Every(Duration.ofMillis(500))),
                new Sleep("quoted", "\"2h\"", new SleepInterval.Every(Duration.ofHours(2))),
                new Sleep("infinite", "infinite", new SleepInterval.Infinite()),
                // NVIDIA's flags_test.go inputs: a JSON number is nanoseconds, 0 and "0s" are zero
                new Sleep("zero as a number", "0", new SleepInterval.Every(Duration.ZERO)),
                new Sleep("zero seconds", "0s", new SleepInterval.Every(Duration.ZERO)),
                new Sleep("a bare number is nanoseconds", "5", new SleepInterval.Every(Duration.ofNanos(5))),
                new Sleep("a float is truncated nanoseconds", "1.9", new SleepInterval.Every(Duration.ofNanos(1))),
                new Sleep("a negative duration", "-5s", new SleepInterval.Every(Duration.ofSeconds(-5))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sleepIntervals")
    void readsSleepIntervalAsGoDuration(Sleep test) {
        Config config = parse("flags:\n  gfd:\n    sleepInterval: " + test.yaml() + "\n");
        assertThat(config.flags().gfd().sleepInterval()).isEqualTo(test.expected());
    }

    @Test
    void failRequestsGreaterThanOneDefaultsDifferByStrategy() {
        String resources = "    resources:\n    - name: gpu\n      replicas: 2\n";
        assertThat(parse("sharing:\n  timeSlicing:\n" + resources).sharing().timeSlicing().orElseThrow()
                .failRequestsGreaterThanOne()).isFalse();
        assertThat(parse("flags:\n  mpsRoot: /mps\nsharing:\n  mps:\n" + resources).sharing().mps().orElseThrow()
                .failRequestsGreaterThanOne()).isTrue();
        assertThat(parse("sharing:\n  mps:\n    failRequestsGreaterThanOne: false\n" + resources).sharing().mps()
                .orElseThrow().failRequestsGreaterThanOne()).isFalse();
        assertThat(parse("sharing:\n  timeSlicing:\n    failRequestsGreaterThanOne: true\n" + resources).sharing()
                .timeSlicing().orElseThrow().failRequestsGreaterThanOne()).isTrue();
    }

    @Test
    void renameByDefaultAppliesOnlyWhereNoRenameIsGiven() {
        Config config = parse("sharing:\n  timeSlicing:\n    renameByDefault: true\n    resources:\n"
                + "    - name: gpu\n      replicas: 2\n      devices: [0]\n"
                + "    - name: gpu\n      rename: gpu-four\n      replicas: 4\n      devices: [1]\n");
        assertThat(config.sharing().active().orElseThrow().resources())
                .extracting(r -> r.advertisedName().value())
                .containsExactly("nvidia.com/gpu.shared", "nvidia.com/gpu-four");
    }

    @Test
    void deviceListStrategiesAreASet() {
        PluginFlags envvar = Config.defaults().flags().plugin();
        assertThat(envvar.includes(DeviceListStrategy.ENVVAR)).isTrue();
        assertThat(envvar.includes(DeviceListStrategy.CDI_CRI)).isFalse();
        PluginFlags cdi = parse("flags:\n  plugin:\n    deviceListStrategy: [cdi-cri, cdi-annotations]\n").flags().plugin();
        assertThat(cdi.includes(DeviceListStrategy.CDI_CRI)).isTrue();
        assertThat(cdi.includes(DeviceListStrategy.CDI_ANNOTATIONS)).isTrue();
        assertThat(cdi.includes(DeviceListStrategy.ENVVAR)).isFalse();
    }

    /** The first resource whose pattern matches {@code name}, as the device plugin picks one. */
    private static Optional<Resource> firstMatch(List<Resource> resources, String name) {
        return resources.stream().filter(r -> r.pattern().matches(name)).findFirst();
    }

    @Test
    void resourcePatternsMatchWholeNamesWithStars() {
        assertThat(new ResourcePattern("*").matches("anything at all")).isTrue();
        assertThat(new ResourcePattern("A100*").matches("A100-SXM4-40GB")).isTrue();
        assertThat(new ResourcePattern("A100*").matches("NVIDIA A100")).isFalse();
        assertThat(new ResourcePattern("1g.5gb").matches("1g.5gb")).isTrue();
        assertThat(new ResourcePattern("1g.5gb").matches("1g.5gb+me")).isFalse();
        assertThat(new ResourcePattern("1g.5gb").matches("1gx5gb")).isFalse();
        assertThat(Resources.defaultMigResourceName("1g.5gb+me")).isEqualTo(ResourceName.of("mig-1g.5gb.me"));
    }

    @Test
    void readsAFileAndNamesTheSettingWhenItCannot(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws IOException {
        java.nio.file.Path file = dir.resolve("config.yaml");
        java.nio.file.Files.writeString(file, resource("mps.yaml"));
        assertThat(ConfigFile.read(file, "CONFIG_FILE").config().sharing().strategy()).isEqualTo(SharingStrategy.MPS);
        java.nio.file.Path missing = dir.resolve("missing.yaml");
        assertThatThrownBy(() -> ConfigFile.read(missing, "--config-file"))
                .hasMessage("invalid configuration: --config-file was '" + missing + "' but it must name a readable file"
                        + " (NoSuchFileException: " + missing + ")");
        java.nio.file.Path huge = dir.resolve("huge.yaml");
        java.nio.file.Files.write(huge, new byte[(int) ConfigFile.MAX_FILE_BYTES + 1]);
        assertThatThrownBy(() -> ConfigFile.read(huge, "CONFIG_FILE"))
                .hasMessage("invalid configuration: CONFIG_FILE was '" + huge + "' but it must name a file of at most"
                        + " 4194304 bytes (4 MiB); reading stopped there");
        java.nio.file.Path binary = dir.resolve("binary.yaml");
        java.nio.file.Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0});
        assertThatThrownBy(() -> ConfigFile.read(binary, "CONFIG_FILE"))
                .hasMessage("invalid configuration: CONFIG_FILE was '" + binary + "' but it must name a UTF-8 text file");
    }
}
