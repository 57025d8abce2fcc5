/**
 * What every kgpu setting is refused in and read with, whichever agent reads it: the failure vocabulary
 * ({@link dev.kgpu.config.ConfigException}; {@link dev.kgpu.config.InvalidConfigException}, every bad setting
 * as a {@link dev.kgpu.config.ValidationFailure} worded {@code <property> was '<value>' but it <reason>};
 * {@link dev.kgpu.config.UsageRequestedException} for {@code --help}; {@link dev.kgpu.config.ConfigWarning} for
 * what is accepted but most likely not meant), {@link dev.kgpu.config.BoundedFile}, which reads a file a setting
 * names with a limit on its size, and {@link dev.kgpu.config.GoJson}, JSON as Go writes it.
 *
 * <p>NVIDIA's config file v1 is {@link dev.kgpu.config.v1}, which uses this package; this package never uses it.
 * How an agent resolves its flags, variables and config file into settings is the agent kit's
 * ({@code dev.kgpu.agent.settings}).
 */
package dev.kgpu.config;
