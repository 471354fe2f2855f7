// How a reconciler tells Cloud API answers apart: a 404 (the object is gone there), and a refusal
// only a change of the spec (or a person) can fix, shown in status and not retried hot; everything
// else (5xx, 429, network) is thrown so the work queue retries with backoff.
import { CloudApiError } from "./client.js";

export const isNotFound = (error: unknown): error is CloudApiError =>
  error instanceof CloudApiError && error.status === 404;

export const isRefusal = (error: unknown): error is CloudApiError =>
  error instanceof CloudApiError && error.status >= 400 && error.status < 500 && error.status !== 429;
