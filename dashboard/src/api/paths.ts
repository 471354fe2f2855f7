/** Paths under /api/v1 with every id encoded: an id never changes which resource is addressed. */
export const seg = encodeURIComponent;
export const inOrg = (orgId: string, rest = "") => `/orgs/${seg(orgId)}${rest}`;
