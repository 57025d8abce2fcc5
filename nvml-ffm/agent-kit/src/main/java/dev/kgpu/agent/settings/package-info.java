/**
 * How a kgpu agent reads its settings, compatible with NVIDIA's agents: the same config file v1
 * ({@link dev.kgpu.config.v1}), the same command-line flags and environment variables, the same precedence
 * (flag, then environment variable, then config file, then default). Each agent lists its settings as
 * {@link dev.kgpu.agent.settings.Setting}s (the device plugin's {@code DevicePluginConfig}, discovery's
 * {@code FeatureDiscoveryConfig}, the exporter's and the validator's own) and loads them with a
 * {@link dev.kgpu.agent.settings.ConfigLoader}.
 *
 * <p>Each agent's entry point loads its configuration once and exits on failure with one line:
 * {@snippet :
 * ConfigLoader<DevicePluginConfig> loader = DevicePluginConfig.loader(args, System::getenv);
 * DevicePluginConfig config;
 * try {
 *     config = loader.load();
 * } catch (ConfigException e) {            // --help, or every bad setting on one line
 *     System.err.println(e.getMessage());
 *     System.exit(e.exitCode());           // 0 after --help, 1 otherwise
 *     return;
 * }
 * config.warnings().forEach(w -> log.warn(w.toString()));
 * log.info("Running with config:\n" + config.toJson());
 * // on SIGHUP:
 * switch (loader.reload()) {
 *     case Reload.Loaded<DevicePluginConfig>(var fresh) -> restart(fresh);
 *     case Reload.Rejected<DevicePluginConfig> rejected -> log.error("keeping the running config: " + rejected.message());
 * }
 * }
 *
 * <p>Every failure is worded {@code <property> was '<value>' but it <reason>}, where the property is
 * what the user wrote: a flag ({@code --mig-strategy}), an environment variable ({@code MIG_STRATEGY}) or
 * a config-file path ({@code sharing.timeSlicing.resources[0].replicas}). The environment is always read
 * through a {@code Function<String, String>}, so tests never touch the real one. Nothing here touches
 * NVML or the file system beyond reading the config file.
 */
package dev.kgpu.agent.settings;
