package dev.kgpu.plugin.settings;

import dev.kgpu.agent.ExecutablePages;
import dev.kgpu.agent.settings.ConfigLoader;
import dev.kgpu.agent.settings.HttpSettings;
import dev.kgpu.agent.settings.Setting;
import dev.kgpu.config.ConfigWarning;
import dev.kgpu.config.InvalidConfigException;
import dev.kgpu.config.UsageRequestedException;
import dev.kgpu.config.v1.ValueType;
import dev.kgpu.plugin.config.DevicePluginConfig;
import dev.kgpu.plugin.config.KubeletApi;
import dev.kgpu.plugin.deviceplugin.DevicePluginSettings;
import dev.kgpu.plugin.dra.DraSettings;
import dev.kgpu.plugin.mps.MpsSettings;
import dev.kgpu.plugin.node.NodeConfiguration;
import dev.kgpu.plugin.node.NodeSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Everything the plugin runs with, read and validated at once by {@link #load}, through one
 * {@code dev.kgpu.agent.settings} loader: NVIDIA's flags, environment variables and config file v1 (flag, then
 * variable, then file), NVIDIA's health variables, and kgpu's own. Composed of the node's settings, plus the device
 * plugin's when {@code KGPU_KUBELET_APIS} lists {@code device-plugin}, plus the DRA driver's when it lists
 * {@code dra}: each part owns its settings and the rule that builds it from what was read. The entry point loads it at
 * start and the node loads it again the same way on SIGHUP. Immutable.
 *
 * <p>The command line and the environment are the same for every load, so a reload can only change what the config
 * file sets; which parts are present never changes.
 *
 * @param node         the node runtime's own: NVML, health, retries
 * @param devicePlugin the device-plugin API's, when it is served
 * @param dra          the DRA driver's, when it runs
 * @param description  the effective configuration as JSON, logged after "Running with config:"
 * @param warnings     accepted but suspicious settings, logged at WARN
 * @param releaseStartupPages whether a native plugin unmaps its start-up pages before it registers and hands them back once it serves
 *                     ({@code KGPU_RELEASE_STARTUP_PAGES}, {@link ExecutablePages})
 */
public record PluginSettings(NodeSettings node, Optional<DevicePluginSettings> devicePlugin, Optional<DraSettings> dra,
                             String description, List<ConfigWarning> warnings, boolean releaseStartupPages)
        implements NodeConfiguration {

    /** kgpu: which kubelet APIs to serve. */
    static final Setting<Set<KubeletApi>> KUBELET_APIS = Setting.of(List.of("kubelet-apis"), List.of("KGPU_KUBELET_APIS"),
            ValueType.setOf(KubeletApi.class), Set.of(KubeletApi.DEVICE_PLUGIN),
            "kgpu: the kubelet APIs to serve: device-plugin, dra (the DRA driver gpu.nvidia.com), or both");

    /** kgpu's settings and those of NVIDIA's DRA driver, read with NVIDIA's device plugin's: each part's, and the choice. */
    static final List<Setting<?>> KGPU_SETTINGS = settings();

    public PluginSettings {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(devicePlugin, "devicePlugin");
        Objects.requireNonNull(dra, "dra");
        Objects.requireNonNull(description, "description");
        warnings = List.copyOf(warnings);
    }

    /**
     * Reads every setting once.
     *
     * @param args        the command line, without the program name
     * @param environment the process environment ({@code System::getenv} or the app's configuration)
     * @throws UsageRequestedException after {@code --help}: print the usage and exit 0
     * @throws InvalidConfigException  naming every bad setting and its value on one line: print it and exit 1
     */
    public static PluginSettings load(String[] args, Function<String, String> environment) {
        return DevicePluginConfig.loader(args, environment, KGPU_SETTINGS, PluginSettings::of).load();
    }

    private static List<Setting<?>> settings() {
        List<Setting<?>> all = new ArrayList<>(NodeSettings.SETTINGS);
        all.addAll(DevicePluginSettings.SETTINGS);
        all.add(KUBELET_APIS);
        all.addAll(DraSettings.SETTINGS);
        all.add(HttpSettings.PORT);
        all.add(ExecutablePages.SETTING);
        return List.copyOf(all);
    }

    private static PluginSettings of(DevicePluginConfig loaded, ConfigLoader.Resolved resolved) {
        NodeSettings node = NodeSettings.of(loaded, resolved);
        Set<KubeletApi> apis = resolved.get(KUBELET_APIS);
        Optional<DevicePluginSettings> devicePlugin = apis.contains(KubeletApi.DEVICE_PLUGIN)
                ? Optional.of(DevicePluginSettings.of(loaded, resolved, node.procRoot())) : Optional.empty();
        Optional<DraSettings> dra = apis.contains(KubeletApi.DRA)
                ? DraSettings.of(loaded, resolved, node.procRoot(), resolved.property(KUBELET_APIS) + " lists dra",
                        MpsSettings.of(resolved), devicePlugin.isPresent())
                : Optional.empty();
        return new PluginSettings(node, devicePlugin, dra, loaded.toJson(), loaded.warnings(),
                resolved.get(ExecutablePages.SETTING));
    }
}
