/**
 * Container Device Interface (CDI) specs, shared by kgpu's device plugin, the validator and the simulated node
 * (and a DRA driver later): the spec model ({@link dev.kgpu.cdi.CdiSpec}, field for field the CDI project's
 * {@code specs-go}), its JSON as Go writes it and a strict JSON/YAML reader ({@link dev.kgpu.cdi.CdiJson}), the
 * naming rules and versions ({@link dev.kgpu.cdi.CdiNames}, {@link dev.kgpu.cdi.CdiVersion}), an atomic writer
 * for a spec directory ({@link dev.kgpu.cdi.CdiSpecWriter}), the resolution of {@code vendor/class=name} into
 * container edits as containerd and CRI-O resolve it ({@link dev.kgpu.cdi.CdiRegistry}), and the spec NVIDIA's
 * device plugin generates for its GPUs ({@link dev.kgpu.cdi.NvidiaCdiGenerator}).
 *
 * {@snippet :
 * NvidiaCdiGenerator.Options options = NvidiaCdiGenerator.Options.devicePlugin(
 *         Path.of("/driver-root"), Path.of("/"), NvidiaCdiGenerator.NameStrategy.UUID);
 * CdiSpec spec = NvidiaCdiGenerator.generate(options, nvml.driverVersion(), gpus);   // plain records, no NVML here
 * new CdiSpecWriter(Path.of("/var/run/cdi")).write(spec);     // k8s.device-plugin.nvidia.com-gpu.json, atomically
 *
 * CdiRegistry node = CdiRegistry.load(CdiRegistry.DEFAULT_DIRECTORIES);
 * CdiSpec.ContainerEdits edits = node.resolve(List.of("k8s.device-plugin.nvidia.com/gpu=" + uuid));
 * }
 *
 * <p>Nothing here touches NVML or {@code java.lang.foreign}; inputs are records, and bad input is a
 * {@link dev.kgpu.cdi.CdiException} with one line naming the field (or file) and the value. Every type is
 * immutable or stateless and safe for concurrent use.
 */
package dev.kgpu.cdi;
