import { useState } from "react";
import { checkBundleBytes, type BundleCheck } from "../../crypto/bundle-check.js";
import { VerificationChecks } from "../receipts/VerificationChecks.js";

/** Any receipt bundle file checked in this browser, with no call to any server and no sign-in. */
export function VerifyBundlePage() {
  const [check, setCheck] = useState<BundleCheck | null>(null);
  return (
    <main className="narrow">
      <h1>Verify a receipt bundle</h1>
      <p>
        The file is checked here, in this browser, with the same evidence code the CLI uses. Nothing is sent
        anywhere.
      </p>
      <label>
        Bundle file (.svcbundle)
        <input
          type="file"
          onChange={async (e) => {
            const f = e.target.files?.[0];
            if (f) setCheck(checkBundleBytes(new Uint8Array(await f.arrayBuffer())));
          }}
        />
      </label>
      {check && (
        <section data-testid="local-verification">
          <p>
            File SHA-256 <code data-testid="file-sha256">{check.sha256}</code>
          </p>
          {check.unreadable ? (
            <p className="bad">{check.unreadable}</p>
          ) : (
            check.result && <VerificationChecks testId="browser-verification" result={check.result} />
          )}
        </section>
      )}
    </main>
  );
}
