/**
 * Operator identity (DESIGN "Kubernetes"): the operator presents its
 * ServiceAccount token as a bearer token; the api asks the cluster's
 * TokenReview API (authentication.k8s.io/v1) whether it is valid for our
 * audience and which ServiceAccount it names — the pattern of Vault's
 * Kubernetes auth. The token itself is never stored or logged.
 */
export interface TokenReviewer {
  /** The ServiceAccount user name (`system:serviceaccount:<ns>:<name>`), or undefined when not authenticated. */
  review(token: string): Promise<string | undefined>;
}

export interface TokenReviewOptions {
  /** Base URL of the Kubernetes API server. */
  url: string;
  /** Bearer token of a ServiceAccount allowed to create tokenreviews. */
  reviewerToken?: string;
  audience: string;
}

export function tokenReviewer(o: TokenReviewOptions): TokenReviewer {
  const endpoint = new URL("/apis/authentication.k8s.io/v1/tokenreviews", o.url).toString();
  return {
    async review(token) {
      const res = await fetch(endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...(o.reviewerToken ? { authorization: `Bearer ${o.reviewerToken}` } : {}),
        },
        body: JSON.stringify({
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenReview",
          spec: { token, audiences: [o.audience] },
        }),
        signal: AbortSignal.timeout(5_000),
      });
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`TokenReview answered HTTP ${res.status}`);
      const body = (await res.json()) as {
        status?: { authenticated?: boolean; user?: { username?: string }; audiences?: string[] };
      };
      const s = body.status;
      if (!s?.authenticated || !s.user?.username?.startsWith("system:serviceaccount:")) return undefined;
      // An API server that ignores audiences would echo none back: refuse.
      if (!s.audiences?.includes(o.audience)) return undefined;
      return s.user.username;
    },
  };
}
