export { buildGatewayServer, type GatewayServerOptions } from "./server.js";
export { startGateway, type RunningServer } from "./start.js";
export { gatewaySettings } from "./config.js";
