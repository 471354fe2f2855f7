/** For MCP server authors: make an SDK server service-aware (check Countersign's evidence, attest results). */
export { serviceAware, type ServiceAwareOptions } from "./service-aware.js";
