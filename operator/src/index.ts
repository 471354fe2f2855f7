export { startOperator, type OperatorOptions, type RunningOperator } from "./operator.js";
export { CloudApiClient, CloudApiError, cloudApi, type CloudApi } from "./cloud-api/index.js";
export { kinds, group, version, apiVersion } from "./crds/kinds.js";
