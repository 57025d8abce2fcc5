/**
 * NVIDIA's config file v1 ({@code api/config/v1} of NVIDIA/k8s-device-plugin) as immutable, validated
 * records: {@link dev.kgpu.config.v1.Config} with {@link dev.kgpu.config.v1.Flags},
 * {@link dev.kgpu.config.v1.Resources}, {@link dev.kgpu.config.v1.Sharing} and
 * {@link dev.kgpu.config.v1.Imex}; {@link dev.kgpu.config.v1.ConfigFile} decodes the YAML and
 * {@link dev.kgpu.config.v1.ConfigJson} prints the effective config as NVIDIA logs it.
 *
 * <p>Field names, defaults and value spellings are NVIDIA's, and so is what is accepted. The sharing entries'
 * {@code rename} and {@code devices} are kept (NVIDIA v0.20 drops them with a warning), so that the device
 * plugin can warn about them as NVIDIA does, or honour them when asked (NVIDIA issue #1786).
 * No component is ever null: defaults are applied before construction. The agents obtain a
 * {@code Config} through their own settings, the plugin's {@code DevicePluginConfig} and discovery's
 * {@code FeatureDiscoveryConfig}, which apply flags and environment variables.
 */
package dev.kgpu.config.v1;
