/**
 * What the agents that talk to the Kubernetes API server share: {@link dev.kgpu.agent.kubernetes.KubernetesError},
 * the one reading of fabric8's failures; and {@link dev.kgpu.agent.kubernetes.NativeKubernetesClient}, the native
 * executables' client without the kinds no agent reads. fabric8's client is an optional dependency of the agent kit.
 */
package dev.kgpu.agent.kubernetes;
