import type { UseQueryResult } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { ErrorNotice } from "./ErrorNotice.js";

/** Renders a query's data, or its loading state or error. */
export function Loaded<T>({
  query,
  children,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <p className="muted">Loading…</p>;
  if (query.isError) return <ErrorNotice error={query.error} />;
  return <>{children(query.data)}</>;
}
