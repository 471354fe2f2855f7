export {
  applyCrds,
  runKubectl,
  startControlPlane,
  type ControlPlane,
  type KubeconfigOptions,
  type KubectlResult,
} from "./control-plane.js";
export { kubernetesVersion } from "./binaries.js";
