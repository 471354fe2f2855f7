export { createServer, type ServerOptions } from "./create-server.js";
export { censorLine, createLogger, sensitiveNames, type Logger } from "./logger.js";
export { isWellFormedRequestId, requestIdOf, REQUEST_ID_HEADER } from "./request-id.js";
export { type Lifecycle, probePaths } from "./lifecycle.js";
export { runUntilSignal } from "./run-until-signal.js";
export { listeningUrl, type RunningServer } from "./running-server.js";
export { RequestTextError, isRequestTextError } from "./request-text.js";
