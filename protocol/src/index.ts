/**
 * The protocol every Countersign component speaks, one area per subpath
 * (`@countersign/protocol/evidence`, `/policy`, `/canonical`, `/errors`,
 * `/wire`); the root gathers them as namespaces.
 */
export * as canonical from "./canonical/index.js";
export * as errors from "./errors/index.js";
export * as evidence from "./evidence/index.js";
export * as policy from "./policy/index.js";
export * as upstream from "./upstream/index.js";
export * as wire from "./wire/index.js";
