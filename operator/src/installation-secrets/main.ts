// The chart's installation-secrets hook Job: makes each Secret COUNTERSIGN_INSTALLATION_SECRETS
// describes (JSON list, see secrets.ts) in COUNTERSIGN_SECRETS_NAMESPACE, adding only what is
// missing, then exits. It logs Secret and key names, never a value.
import { KubeConfig } from "@kubernetes/client-node";
import { z } from "zod";
import { createLogger } from "../log.js";
import { ensureInstallationSecret, installationSecret } from "./secrets.js";

const log = createLogger("info");
try {
  const namespace = z.string().min(1).parse(process.env.COUNTERSIGN_SECRETS_NAMESPACE);
  const wanted = z
    .array(installationSecret)
    .parse(JSON.parse(process.env.COUNTERSIGN_INSTALLATION_SECRETS ?? "[]"));
  const labels = z
    .record(z.string(), z.string())
    .parse(JSON.parse(process.env.COUNTERSIGN_SECRETS_LABELS ?? "{}"));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  for (const secret of wanted) {
    const added = await ensureInstallationSecret(kubeConfig, namespace, secret, labels);
    log.info(
      { secret: secret.name, added },
      added.length ? "installation secret keys created" : "installation secret present",
    );
  }
} catch (error) {
  log.error(
    { error: error instanceof Error ? error.message.split("\n")[0] : String(error) },
    "installation secrets not made",
  );
  process.exit(1);
}
