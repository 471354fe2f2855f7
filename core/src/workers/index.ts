export { startPeriodic, type PeriodicOptions, type PeriodicWorker } from "./periodic.js";
