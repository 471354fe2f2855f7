/** SPEC 9: every Cloud API route lives under this prefix. */
export const API_PREFIX = "/api/v1";
