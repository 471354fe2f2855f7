{{/* Names. The release "countersign" gives objects named countersign-<component>. */}}
{{- define "countersign.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains "countersign" .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-countersign" .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "countersign.name" -}}{{ include "countersign.fullname" .root }}-{{ .component }}{{- end -}}

{{- define "countersign.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: countersign
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: countersign
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Labels of one component: pass (dict "root" $ "component" "api"). */}}
{{- define "countersign.componentLabels" -}}
{{ include "countersign.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "countersign.selectorLabels" -}}
app.kubernetes.io/name: countersign
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "countersign.image" -}}
{{- $tag := .Values.image.tag | default .Chart.AppVersion -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ $tag }}
{{- end -}}
{{- end -}}

{{- define "countersign.serviceAccountName" -}}{{ include "countersign.name" . }}{{- end -}}

{{/* Secret holding COUNTERSIGN_KEY_HASH_SECRET, COUNTERSIGN_GATEWAY_SIGNING_KEY, COUNTERSIGN_CREDENTIAL_KEY. */}}
{{- define "countersign.serverSecretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "countersign.fullname" .)) -}}
{{- end -}}

{{/* Secret holding DATABASE_URL: the user's (external database) or the chart's in-cluster PostgreSQL's. */}}
{{- define "countersign.databaseSecretName" -}}
{{- if .Values.postgresql.enabled -}}
{{- printf "%s-database" (include "countersign.fullname" .) -}}
{{- else -}}
{{- required "database.existingSecret must name a Secret holding DATABASE_URL (or set postgresql.enabled=true for a trial database)" .Values.database.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "countersign.databaseSecretKey" -}}
{{- if .Values.postgresql.enabled -}}DATABASE_URL{{- else -}}{{ .Values.database.secretKey }}{{- end -}}
{{- end -}}

{{/* The CloudNativePG Cluster and Pooler of the production database mode (cloudnativepg.yaml). */}}
{{- define "countersign.cnpgClusterName" -}}
{{- printf "%s-db" (include "countersign.fullname" .) -}}
{{- end -}}

{{- define "countersign.cnpgPoolerName" -}}
{{- printf "%s-db-pooler" (include "countersign.fullname" .) -}}
{{- end -}}

{{/*
DATABASE_URL. In the CloudNativePG mode: the Pooler's Service (or the Cluster's -rw Service), as the
bootstrap database's owner, whose password CloudNativePG keeps in <cluster>-app; node-postgres
reads it from PGPASSWORD, so no password is written into a URL (nor needs escaping).
*/}}
{{- define "countersign.databaseEnv" -}}
{{- if .Values.cloudnativepg.enabled -}}
{{- $cluster := include "countersign.cnpgClusterName" . -}}
{{- $host := ternary (include "countersign.cnpgPoolerName" .) (printf "%s-rw" $cluster) .Values.cloudnativepg.pooler.enabled -}}
- name: PGPASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $cluster }}-app
      key: password
- name: DATABASE_URL
  value: {{ printf "postgres://countersign@%s.%s.svc:5432/countersign" $host .Release.Namespace | quote }}
{{- else -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "countersign.databaseSecretName" . }}
      key: {{ include "countersign.databaseSecretKey" . }}
{{- end -}}
{{- end -}}

{{/* Pod-level security: non-root, a fixed group for the emptyDir, seccomp RuntimeDefault. */}}
{{- define "countersign.podSecurityContext" -}}
{{ toYaml .Values.podSecurityContext }}
{{- end -}}

{{- define "countersign.containerSecurityContext" -}}
{{ toYaml .Values.containerSecurityContext }}
{{- end -}}

{{/* Every server writes only to /tmp (read-only root filesystem). */}}
{{- define "countersign.tmpVolume" -}}
- name: tmp
  emptyDir:
    sizeLimit: 64Mi
{{- end -}}

{{/* COUNTERSIGN_UPSTREAM_CA_FILE from the upstreamCa ConfigMap: its env, mount and volume (api and gateway). */}}
{{- define "countersign.upstreamCaEnv" -}}
{{- if .Values.upstreamCa.configMap }}
- name: COUNTERSIGN_UPSTREAM_CA_FILE
  value: /etc/countersign/upstream-ca/{{ .Values.upstreamCa.key }}
{{- end }}
{{- end -}}

{{- define "countersign.upstreamCaMount" -}}
{{- if .Values.upstreamCa.configMap }}
- name: upstream-ca
  mountPath: /etc/countersign/upstream-ca
  readOnly: true
{{- end }}
{{- end -}}

{{- define "countersign.upstreamCaVolume" -}}
{{- if .Values.upstreamCa.configMap }}
- name: upstream-ca
  configMap:
    name: {{ .Values.upstreamCa.configMap }}
    items:
      - key: {{ .Values.upstreamCa.key }}
        path: {{ .Values.upstreamCa.key }}
{{- end }}
{{- end -}}

{{- define "countersign.webhookCaEnv" -}}
{{- if .Values.webhookCa.configMap }}
- name: COUNTERSIGN_WEBHOOK_CA_FILE
  value: /etc/countersign/webhook-ca/{{ .Values.webhookCa.key }}
{{- end }}
{{- end -}}

{{- define "countersign.webhookCaMount" -}}
{{- if .Values.webhookCa.configMap }}
- name: webhook-ca
  mountPath: /etc/countersign/webhook-ca
  readOnly: true
{{- end }}
{{- end -}}

{{- define "countersign.webhookCaVolume" -}}
{{- if .Values.webhookCa.configMap }}
- name: webhook-ca
  configMap:
    name: {{ .Values.webhookCa.configMap }}
    items:
      - key: {{ .Values.webhookCa.key }}
        path: {{ .Values.webhookCa.key }}
{{- end }}
{{- end -}}

{{- define "countersign.tmpMount" -}}
- name: tmp
  mountPath: /tmp
{{- end -}}

{{- define "countersign.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The Cloud API's in-cluster address, for the operator. */}}
{{- define "countersign.apiUrl" -}}
http://{{ include "countersign.name" (dict "root" . "component" "api") }}.{{ .Release.Namespace }}.svc:{{ .Values.api.service.port }}
{{- end -}}

{{/* base64url of 32 random bytes, no padding (the servers' seed and key formats). */}}
{{- define "countersign.random32" -}}
{{- randBytes 32 | replace "+" "-" | replace "/" "_" | trimSuffix "=" -}}
{{- end -}}

{{/* Labels and annotations spliced into each CRD's metadata (indented by the caller). */}}
{{- define "countersign.crdMetadata" -}}
labels:
{{ include "countersign.labels" . | indent 2 }}
{{- if .Values.crds.keep }}
annotations:
  helm.sh/resource-policy: keep
{{- end }}
{{- end -}}

{{/* Env vars from the installation secrets: (dict "root" $ "keys" (list ...)). */}}
{{- define "countersign.secretEnv" -}}
{{- range .keys }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ include "countersign.serverSecretName" $.root }}
      key: {{ . }}
{{- end }}
{{- end -}}

{{/* Liveness on /healthz, readiness on the server's readiness path; (dict "port" "http" "readiness" "/readyz"). */}}
{{- define "countersign.probes" -}}
livenessProbe:
  httpGet:
    path: /healthz
    port: {{ .port }}
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 6
readinessProbe:
  httpGet:
    path: {{ .readiness }}
    port: {{ .port }}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
startupProbe:
  httpGet:
    path: /healthz
    port: {{ .port }}
  periodSeconds: 2
  failureThreshold: 60
{{- end -}}

{{/* nodeSelector, tolerations and affinity of a component's values. */}}
{{- define "countersign.scheduling" -}}
{{- with .nodeSelector }}
nodeSelector:
{{ toYaml . | indent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
{{ toYaml . | indent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
{{ toYaml . | indent 2 }}
{{- end }}
{{- end -}}

{{/* "cert-manager" or "existingSecret" when the operator's admission webhook is served, else empty. */}}
{{- define "countersign.admissionWebhook.mode" -}}
{{- $webhook := .Values.operator.admissionWebhook -}}
{{- $mode := ternary "existingSecret" (ternary "cert-manager" "" (.Capabilities.APIVersions.Has "cert-manager.io/v1")) (not (empty $webhook.existingSecret)) -}}
{{- $enabled := toString $webhook.enabled -}}
{{- if and .Values.operator.enabled (or (eq $enabled "true") (eq $enabled "auto")) -}}
{{- if and (eq $enabled "true") (not $mode) -}}
{{- fail "operator.admissionWebhook.enabled=true needs cert-manager (cert-manager.io/v1) or operator.admissionWebhook.existingSecret and caBundle" -}}
{{- end -}}
{{- $mode -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding the admission webhook's serving certificate. */}}
{{- define "countersign.admissionWebhook.secret" -}}
{{- .Values.operator.admissionWebhook.existingSecret | default (printf "%s-webhook-tls" (include "countersign.name" (dict "root" . "component" "operator"))) -}}
{{- end -}}

{{/*
Billing through Stripe (docs/billing.md): the two secrets from the installer's Secret, the prices as
plan=price pairs. Both or neither: a Secret without prices (or prices without a Secret) is refused
here, as the api would refuse to start with half a billing configuration.
*/}}
{{- define "countersign.billingEnv" -}}
{{- $b := .Values.api.billing -}}
{{- if and $b.existingSecret (not $b.prices) -}}
{{- fail "api.billing.existingSecret needs api.billing.prices (the Stripe price id of each plan sold)" -}}
{{- end -}}
{{- if and $b.prices (not $b.existingSecret) -}}
{{- fail "api.billing.prices needs api.billing.existingSecret (the Secret with the Stripe secret key and webhook signing secret)" -}}
{{- end -}}
{{- if $b.existingSecret }}
{{- range list "COUNTERSIGN_STRIPE_SECRET_KEY" "COUNTERSIGN_STRIPE_WEBHOOK_SECRET" }}
- name: {{ . }}
  valueFrom:
    secretKeyRef:
      name: {{ $b.existingSecret }}
      key: {{ . }}
{{- end }}
{{- $pairs := list }}
{{- range $plan, $price := $b.prices }}
{{- $pairs = append $pairs (printf "%s=%s" $plan $price) }}
{{- end }}
- name: COUNTERSIGN_STRIPE_PRICES
  value: {{ join "," $pairs | quote }}
{{- with $b.apiUrl }}
- name: COUNTERSIGN_STRIPE_API_URL
  value: {{ . | quote }}
{{- end }}
{{- end }}
{{- end -}}
