// kube-apiserver with RBAC authorization, client-certificate authentication and a ServiceAccount
// signing key, on a fixed loopback port so it can be stopped and started again at the same
// address (the operator's "apiserver restart" test).
import https from "node:https";
import path from "node:path";
import { pem, type Certificates } from "./certificates.js";
import { startChild, stopChild, waitUntil, type Child } from "./processes.js";

export interface KubeApiserver {
  url: string;
  /** Serving again after `stop`, at the same address and with the same data. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function kubeApiserver(
  binary: string,
  dir: string,
  certs: Certificates,
  etcdUrl: string,
  port: number,
): KubeApiserver {
  const url = `https://127.0.0.1:${port}`;
  const args = [
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${dir}`,
    `--tls-cert-file=${certs.servingCert}`,
    `--tls-private-key-file=${certs.servingKey}`,
    `--client-ca-file=${certs.caCert}`,
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    "--advertise-address=127.0.0.1",
    "--authorization-mode=RBAC",
    "--service-cluster-ip-range=10.0.0.0/24",
    "--allow-privileged=true",
    "--disable-admission-plugins=ServiceAccount",
    "--enable-priority-and-fairness=false",
    "--endpoint-reconciler-type=none",
    `--service-account-issuer=${url}`,
    `--service-account-key-file=${certs.serviceAccountPublicKey}`,
    `--service-account-signing-key-file=${certs.serviceAccountKey}`,
  ];
  let child: Child | undefined;
  const ready = () =>
    new Promise<boolean>((resolve) => {
      const req = https.get(
        `${url}/readyz`,
        { ca: pem(certs.caCert), cert: pem(certs.adminCert), key: pem(certs.adminKey), timeout: 2000 },
        (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        },
      );
      req.on("error", () => resolve(false));
      req.on("timeout", () => req.destroy());
    });
  return {
    url,
    async start() {
      child = startChild(binary, args, path.join(dir, "kube-apiserver.log"));
      await waitUntil("kube-apiserver /readyz", ready, child);
    },
    async stop() {
      if (child) await stopChild(child);
      child = undefined;
    },
  };
}
