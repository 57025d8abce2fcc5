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

{{/* Image of one agent: <registry>/<agent>:<tag>. */}}
{{- define "kgpu.image" -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .agent (default .root.Chart.AppVersion .root.Values.image.tag) -}}
{{- end -}}

{{/* Scheduling shared by every DaemonSet. */}}
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

{{/* KGPU_JAVA_OPTS: the chart-wide options, then the agent's own. */}}
{{- define "kgpu.javaOpts" -}}
- name: KGPU_JAVA_OPTS
  value: {{ trim (printf "%s %s" .root.Values.javaOpts .opts) | quote }}
{{- end -}}

{{/* Init container that waits for a validator status file (gpu-operator's readiness chain). */}}
{{- define "kgpu.waitFor" -}}
{{- if .root.Values.validations.gate }}
initContainers:
  - name: wait-for-{{ .file }}
    image: {{ include "kgpu.image" (dict "root" .root "agent" "validator") }}
    imagePullPolicy: {{ .root.Values.image.pullPolicy }}
    command: ["sh", "-c", "until [ -f /run/nvidia/validations/{{ .file }} ]; do echo waiting for {{ .file }}; sleep 5; done"]
    volumeMounts:
      - name: run-nvidia-validations
        mountPath: /run/nvidia/validations
        mountPropagation: HostToContainer
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
