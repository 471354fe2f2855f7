export { buildApiServer, API_PREFIX, type ApiServerOptions } from "./server.js";
export { startApi, type RunningServer } from "./start.js";
export { apiSettings } from "./config.js";
