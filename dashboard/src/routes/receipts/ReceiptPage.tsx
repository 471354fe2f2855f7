import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams } from "react-router";
import { receiptsApi } from "../../api/receipts.js";
import { orgPath, useCurrentOrganization } from "../../session/organization.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import { checkBundleBytes, type BundleCheck } from "../../crypto/bundle-check.js";
import { VerificationChecks } from "./VerificationChecks.js";
import { JsonBlock } from "../../components/JsonBlock.js";

/** A receipt: its chain, participants, delegations and checks; the bundle to download, and to verify here, offline. */
export function ReceiptPage() {
  const { orgId } = useCurrentOrganization();
  const { receiptId = "" } = useParams();
  const receipt = useQuery(receiptsApi.query(orgId, receiptId));
  const [file, setFile] = useState<{ url: string; name: string; bytes: Uint8Array } | null>(null);
  const [local, setLocal] = useState<BundleCheck | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <main>
      <Loaded query={receipt}>
        {({ receipt: r }) => (
          <>
            <h1>
              Receipt: {r.kind}, {r.outcome}
            </h1>
            <dl className="facts">
              <dt>Action</dt>
              <dd>
                <Link to={orgPath(orgId, `/actions/${r.protected_action_id}`)}>{r.protected_action_id}</Link>
              </dd>
              <dt>Receipt object</dt>
              <dd>
                <code>{r.receipt_object_id}</code>
              </dd>
              <dt>Issuer</dt>
              <dd>
                <code>{r.issuer_kid}</code>
              </dd>
              <dt>Bundle</dt>
              <dd>
                <code>{r.bundle_sha256}</code> ({r.bundle_size} bytes)
              </dd>
            </dl>
            <h2>Chain</h2>
            <ol data-testid="chain">
              {r.chain?.map((s) => (
                <li key={s.id}>
                  {s.type} by <code>{s.actor}</code>
                </li>
              ))}
            </ol>
            <h2>Participants and delegations</h2>
            <JsonBlock
              value={{ participants: r.participants, delegations: r.delegations }}
              label="Participants and delegations"
            />
            <h2>Checks by the service</h2>
            {r.verification && <VerificationChecks testId="server-verification" result={r.verification} />}
            <h2>Verify it yourself</h2>
            <button
              type="button"
              onClick={async () => {
                setError(null);
                try {
                  const { bytes } = await receiptsApi.bundle(orgId, r.id);
                  const url = URL.createObjectURL(
                    new Blob([bytes as BlobPart], { type: "application/vnd.service.bundle+json" }),
                  );
                  setFile({ url, name: `receipt-${r.receipt_object_id}.svcbundle`, bytes });
                  setLocal(null);
                } catch (err) {
                  setError(err);
                }
              }}
            >
              Fetch the bundle
            </button>{" "}
            {file && (
              <>
                <a className="button" href={file.url} download={file.name}>
                  Download {file.name}
                </a>{" "}
                <button type="button" onClick={() => setLocal(checkBundleBytes(file.bytes))}>
                  Verify in this browser
                </button>
              </>
            )}
            <label>
              Or verify a bundle file from your disk{" "}
              <input
                type="file"
                onChange={async (e) => {
                  const f = e.target.files?.[0];
                  if (f) setLocal(checkBundleBytes(new Uint8Array(await f.arrayBuffer())));
                }}
              />
            </label>
            <ErrorNotice error={error} />
            {local && (
              <section data-testid="local-verification">
                <p>
                  File SHA-256 <code>{local.sha256}</code>{" "}
                  {local.sha256 === r.bundle_sha256
                    ? "(the hash the service recorded)"
                    : "(differs from the hash the service recorded)"}
                </p>
                {local.unreadable ? (
                  <p className="bad">{local.unreadable}</p>
                ) : (
                  local.result && <VerificationChecks testId="browser-verification" result={local.result} />
                )}
              </section>
            )}
          </>
        )}
      </Loaded>
    </main>
  );
}
