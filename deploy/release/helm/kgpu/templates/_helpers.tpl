{{/* Name of one agent's objects: <release>-<agent>, e.g. kgpu-plugin. */}}
{{- define "kgpu.name" -}}
{{- printf "%s-%s" .root.Release.Name .agent | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of one agent's objects. */}}
{{- define "kgpu.labels" -}}
app.kubernetes.io/name: {{ include "kgpu.name" . }}
app.kubernetes.io/component: {{ .agent }}
app.kubernetes.io/part-of: kgpu
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version }}
{{- end -}}

{{/* Selector labels of one agent's pods. */}}
{{- define "kgpu.selector" -}}
app.kubernetes.io/name: {{ include "kgpu.name" . }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
{{- end -}}

{{/* Image of one agent: <registry>/<agent>:<tag>, the tag the chart's appVersion (the images' version) unless set. */}}
{{- define "kgpu.image" -}}
{{- printf "%s/%s:%s" (trimSuffix "/" .root.Values.image.registry) .agent (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{/* Scheduling and the pod-level security shared by every DaemonSet. */}}
{{- define "kgpu.scheduling" -}}
priorityClassName: {{ .Values.priorityClassName }}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{/*
A container's securityContext: no capabilities, no privilege escalation, a read-only root filesystem and the
runtime's default seccomp profile. "user" is "nonroot" (uid 65532, the exporter's and discovery's images'
user) or "root" (uid 0, for host paths that are root's; still without any capability). "add", optional,
lists the only capabilities given back (every caller says why next to it); the API server then refuses
allowPrivilegeEscalation: false with CAP_SYS_ADMIN, so it is left to its default.
*/}}
{{- define "kgpu.securityContext" -}}
{{- if eq .user "root" }}
runAsUser: 0
runAsNonRoot: false
{{- else }}
runAsUser: 65532
runAsGroup: 65532
runAsNonRoot: true
{{- end }}
{{- if not .add }}
allowPrivilegeEscalation: false
{{- end }}
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
  {{- with .add }}
  add: {{ toJson . }}
  {{- end }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
The securityContext of a container that must be privileged; every caller says why next to it. Privileged
means every capability and every host device, so dropping capabilities or escalation would be meaningless
(and the API server rejects allowPrivilegeEscalation: false with privileged: true).
*/}}
{{- define "kgpu.privileged" -}}
privileged: true
runAsUser: 0
readOnlyRootFilesystem: true
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/*
Probes of an agent's health endpoints (Quarkus SmallRye Health): started = live answers (the JVM and the
agent's supervisor run; up to 2 minutes for a first start on a busy node), live and ready after that.
"scheme" HTTPS when the agent serves TLS (the kubelet then does not verify its certificate).
*/}}
{{- define "kgpu.probes" -}}
startupProbe:
  httpGet: {path: {{ .live | default "/q/health/live" }}, port: {{ .port }}{{ with .scheme }}, scheme: {{ . }}{{ end }}}
  periodSeconds: 2
  timeoutSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet: {path: {{ .live | default "/q/health/live" }}, port: {{ .port }}{{ with .scheme }}, scheme: {{ . }}{{ end }}}
  periodSeconds: 10
  timeoutSeconds: 2
  failureThreshold: 3
readinessProbe:
  httpGet: {path: /q/health/ready, port: {{ .port }}{{ with .scheme }}, scheme: {{ . }}{{ end }}}
  periodSeconds: {{ .readyPeriod | default 10 }}
  timeoutSeconds: 2
{{- end -}}

{{/* Extra JVM options, the chart-wide ones then the agent's own: _JAVA_OPTIONS, which the JVM reads after
its command line (the image's @/opt/kgpu/jvm.options), so they win (e.g. a larger -Xmx). JVM images only: a
native executable does not read _JAVA_OPTIONS. */}}
{{- define "kgpu.javaOpts" -}}
{{- $opts := trim (printf "%s %s" .root.Values.javaOpts .opts) }}
{{- if $opts }}
- name: _JAVA_OPTIONS
  value: {{ $opts | quote }}
{{- end }}
{{- end -}}

{{/* The image's own start command, for containers that run one of its other commands: the native executable,
or with image.flavour=jvm the JVM's command line. */}}
{{- define "kgpu.command" -}}
{{- if eq .root.Values.image.flavour "jvm" -}}
"/opt/java/bin/java", "@/opt/kgpu/jvm.options", "-XX:AOTCache=/opt/kgpu/app.aot", "-jar", "/opt/kgpu/quarkus-run.jar"
{{- else if eq .root.Values.image.flavour "native" -}}
"/opt/kgpu/{{ .agent }}"
{{- else -}}
{{- fail (printf "image.flavour was '%s' but it must be native or jvm" .root.Values.image.flavour) -}}
{{- end -}}
{{- end -}}

{{/* Init container that waits for a validator status file (gpu-operator's readiness chain), with the
validator's own command: the images hold no shell. */}}
{{- define "kgpu.waitFor" -}}
{{- if .root.Values.validations.gate }}
initContainers:
  - name: wait-for-{{ .file }}
    image: {{ include "kgpu.image" (dict "root" .root "agent" "validator") }}
    imagePullPolicy: {{ .root.Values.image.pullPolicy }}
    command: [{{ include "kgpu.command" (dict "root" .root "agent" "validator") }}, "wait-for", "/run/nvidia/validations/{{ .file }}"]
    securityContext:
      {{- include "kgpu.securityContext" (dict "user" "nonroot") | nindent 6 }}
    resources:
      requests: {cpu: 10m, memory: 48Mi}
      limits: {memory: 96Mi}
    volumeMounts:
      - name: run-nvidia-validations
        mountPath: /run/nvidia/validations
        readOnly: true
      - name: tmp
        mountPath: /tmp
{{- end }}
{{- end -}}

{{/* The volume the gate above reads. */}}
{{- define "kgpu.validationsVolume" -}}
{{- if .Values.validations.gate }}
- name: run-nvidia-validations
  hostPath:
    path: {{ .Values.validations.hostPath }}
    type: DirectoryOrCreate
{{- end }}
{{- end -}}

{{/* The JVM's scratch space on a read-only root filesystem. */}}
{{- define "kgpu.tmpVolume" -}}
- name: tmp
  emptyDir:
    medium: Memory
    sizeLimit: 16Mi
{{- end -}}

{{/* The plugin and discovery read NVIDIA's config file v1 from this ConfigMap, when one is given. */}}
{{- define "kgpu.configMapName" -}}
{{- if .Values.config.name -}}
{{ .Values.config.name }}
{{- else if .Values.config.map -}}
{{ printf "%s-config" .Release.Name }}
{{- end -}}
{{- end -}}

{{- define "kgpu.configFile" -}}
{{- $default := .Values.config.default -}}
{{- if and (not $default) .Values.config.map -}}
{{- $default = first (sortAlpha (keys .Values.config.map)) -}}
{{- end -}}
{{ printf "/config/%s" (default "config.yaml" $default) }}
{{- end -}}

{{/* Whether the device plugin hands out devices by CDI (deviceListStrategy cdi-annotations or cdi-cri). */}}
{{/* The plugin writes CDI specs in the host's /var/run/cdi from the driver root: a cdi-* strategy or the DRA driver. */}}
{{- define "kgpu.cdiSpecs" -}}
{{- if or (include "kgpu.cdi" .) .Values.draDriver.enabled -}}
true
{{- end -}}
{{- end -}}

{{- define "kgpu.cdi" -}}
{{- if and (not (kindIs "invalid" .Values.deviceListStrategy)) (contains "cdi-" (toString .Values.deviceListStrategy)) -}}
true
{{- end -}}
{{- end -}}

{{/* Discovery's label sink: node, nodefeature, file, or auto (nodefeature when NFD's CRD is served, else node). */}}
{{- define "kgpu.labelSink" -}}
{{- default "auto" .Values.gfd.labelSink -}}
{{- end -}}
