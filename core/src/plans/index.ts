export { plans, quotas, isPlan, type Plan, type Quotas } from "./quotas.js";
export {
  foldUsageShards,
  foldCrowdedUsageShards,
  FOLD_ABOVE_SHARDS,
  FOLDS_PER_PASS,
} from "./usage-shards-store.js";
