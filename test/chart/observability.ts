/**
 * The chart's Grafana dashboard and alerts read as their queries, and a Prometheus /metrics page
 * read as the metric names it exports, so the tests can hold one against the other.
 */
import { find, type K8sObject } from "./helm.js";

export const dashboardConfigMap = "countersign-dashboard";

export interface DashboardPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
}

export interface Dashboard {
  uid: string;
  title: string;
  panels: DashboardPanel[];
  templating: { list: Array<{ name: string; type: string; query?: string | { query: string } }> };
}

/** The dashboard JSON as the rendered ConfigMap carries it. */
export function dashboardOf(objects: K8sObject[]): Dashboard {
  const map = find(objects, "ConfigMap", dashboardConfigMap);
  return JSON.parse(map.data["countersign.json"]) as Dashboard;
}

/** Every PromQL query of the dashboard, by where it is (panel title or variable name). */
export function dashboardQueries(dashboard: Dashboard): Array<{ where: string; expr: string }> {
  const panels = dashboard.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr })),
  );
  const variables = dashboard.templating.list
    .filter((v) => v.type === "query")
    .map((v) => ({
      where: `variable ${v.name}`,
      expr: typeof v.query === "string" ? v.query : v.query!.query,
    }));
  return [...panels, ...variables];
}

/** Every alert's expression of the rendered PrometheusRule. */
export function alertQueries(objects: K8sObject[]): Array<{ where: string; expr: string }> {
  const rule = objects.find((o) => o.kind === "PrometheusRule");
  if (!rule) throw new Error("no PrometheusRule rendered");
  return (rule.spec.groups as Array<{ rules: Array<{ alert: string; expr: string }> }>).flatMap((g) =>
    g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr })),
  );
}

/** The Countersign metric names a query reads. */
export const metricNames = (expr: string): string[] => [
  ...new Set(expr.match(/\bcountersign_[a-z0-9_]+\b/g) ?? []),
];

/**
 * The names a /metrics page (Prometheus text format) exports: each `# TYPE` line's name (a
 * counter with labels has no sample until it counts something, but is exported), and a
 * histogram's `_bucket`, `_sum` and `_count` series.
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split("\n")) {
    const m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/.exec(line);
    if (!m) continue;
    names.add(m[1]!);
    if (m[2] === "histogram") for (const suffix of ["_bucket", "_sum", "_count"]) names.add(m[1]! + suffix);
  }
  return names;
}
