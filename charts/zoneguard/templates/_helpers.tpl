{{/* Name of every object: the release name, or <release>-zoneguard. */}}
{{- define "zoneguard.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "zoneguard.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "zoneguard.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/component: webhook
{{- end -}}

{{- define "zoneguard.tlsSecret" -}}
{{- .Values.tls.secretName | default (printf "%s-tls" (include "zoneguard.fullname" .)) -}}
{{- end -}}

{{/* CEL: some annotation key starts with one of the external-dns prefixes. */}}
{{- define "zoneguard.prefixMatch" -}}
{{- $parts := list -}}
{{- range .Values.webhook.annotationPrefixes -}}
{{- $parts = append $parts (printf "k.startsWith('%s')" .) -}}
{{- end -}}
{{- join " || " $parts -}}
{{- end -}}

{{/* namespaceSelector that keeps the release namespace and the exclusions out. */}}
{{- define "zoneguard.excludeNamespaces" -}}
namespaceSelector:
  matchExpressions:
    - key: kubernetes.io/metadata.name
      operator: NotIn
      values: {{ prepend .Values.webhook.excludedNamespaces .Release.Namespace | uniq | toJson }}
{{- end -}}

{{- define "zoneguard.clientConfig" -}}
clientConfig:
  service:
    name: {{ include "zoneguard.fullname" .root }}
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  {{- if and (not .root.Values.certManager.enabled) .root.Values.tls.caBundle }}
  caBundle: {{ .root.Values.tls.caBundle }}
  {{- end }}
{{- end -}}

{{- define "zoneguard.webhookAnnotations" -}}
{{- if .Values.certManager.enabled }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/{{ include "zoneguard.fullname" . }}-serving-cert
{{- end }}
{{- end -}}
