export { buildApiServer, API_PREFIX, type ApiServerOptions } from "./server.js";
export { startApi, type RunningServer } from "./start.js";
export { apiSettings } from "./config.js";
export { cloudOptionsFrom, type CloudSettings } from "./cloud-options.js";
export type { CloudApiOptions } from "./context.js";
export { routeTable } from "./access/route-table.js";
export { hashPassword } from "./accounts/password-hash.js";
