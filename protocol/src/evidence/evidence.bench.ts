import { bench, describe } from "vitest";
import {
  nobleSigner,
  nobleVerify,
  nodeSigner,
  nodeVerify,
  serializeBundle,
  signObject,
  signingInput,
  verifyBundle,
} from "@countersign/protocol/evidence";
import { buildScenario, scenarioSeeds } from "./scenario.test-support.js";

/**
 * Signs/s and verifies/s of Ed25519 through node:crypto and @noble/ed25519
 * (`make bench`; vitest prints ops/s as hz; nothing is asserted), then the
 * protocol operations built on them: signing a TASK (canonicalize + hash +
 * sign) and verifying a whole bundle offline.
 */
const bundle = buildScenario("approved-execution");
const task = bundle.objects[0]!;
const message = signingInput(task.body);
const node = nodeSigner(scenarioSeeds.gateway);
const noble = nobleSigner(scenarioSeeds.gateway);
const signature = node.sign(message);

describe("Ed25519 sign (TASK signing input)", () => {
  bench("node:crypto sign", () => {
    node.sign(message);
  });
  bench("noble sign", () => {
    noble.sign(message);
  });
});

describe("Ed25519 verify (TASK signing input)", () => {
  bench("node:crypto verify", () => {
    nodeVerify(node.publicKey, message, signature);
  });
  bench("noble verify", () => {
    nobleVerify(noble.publicKey, message, signature);
  });
});

describe("protocol operations", () => {
  bench("signObject TASK (canonicalize + SHA-256 + node sign)", () => {
    signObject(task.body, node);
  });
  const file = serializeBundle(bundle);
  bench("verifyBundle 5-step bundle, node:crypto", () => {
    verifyBundle(JSON.parse(file));
  });
  bench("verifyBundle 5-step bundle, noble", () => {
    verifyBundle(JSON.parse(file), { verify: nobleVerify });
  });
});
