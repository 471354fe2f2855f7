export { buildGatewayServer, type GatewayServerOptions } from "./server.js";
export { startGateway, type RunningGateway } from "./start.js";
export { gatewaySettings } from "./config.js";
