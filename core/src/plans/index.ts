export { plans, quotas, isPlan, type Plan, type Quotas } from "./quotas.js";
