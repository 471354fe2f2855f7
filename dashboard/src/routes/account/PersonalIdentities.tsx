import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { identitiesApi } from "../../api/me.js";
import { ErrorNotice } from "../../components/ErrorNotice.js";
import { Loaded } from "../../components/Loading.js";
import {
  bindNewPersonalKey,
  importPersonalKey,
  personalKeys,
  unbindPersonalKey,
} from "../../crypto/personal-key.js";
import { useSignedIn } from "../../session/session.js";
import { policyKeys } from "../../api/policies.js";

/** The person's bound keys (at most 5), which of them this browser holds, bind and unbind. */
export function PersonalIdentities() {
  const session = useSignedIn();
  const userId = session.user.id;
  const queryClient = useQueryClient();
  const identities = useQuery({
    queryKey: ["identities", userId],
    queryFn: identitiesApi.list,
  });
  const local = useQuery({
    queryKey: ["personal-keys", userId],
    queryFn: () => personalKeys(userId),
    retry: false,
  });
  const [error, setError] = useState<unknown>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["identities", userId] }),
      queryClient.invalidateQueries({ queryKey: ["personal-keys", userId] }),
      // Whether anyone can approve a policy's held calls depends on the keys bound (NoApprovers).
      queryClient.invalidateQueries({ queryKey: policyKeys.everyStatus }),
    ]);
  const heldKids = new Set(local.data?.map((k) => k.kid) ?? []);
  return (
    <section>
      <h2>Your signing keys</h2>
      <p>
        Approvals are signed in this browser with a key that never leaves it. Bind a key in each browser you
        approve from (at most 5).
      </p>
      <Loaded query={identities}>
        {({ items }) => {
          const active = items.filter((i) => i.status === "active");
          return active.length === 0 ? (
            <p className="muted" data-testid="no-identity">
              No key is bound yet.
            </p>
          ) : (
            <ul data-testid="identities">
              {active.map((i) => (
                <li key={i.kid}>
                  <code>{i.kid}</code>{" "}
                  {heldKids.has(i.kid) ? (
                    <span className="ok">in this browser</span>
                  ) : (
                    <span className="muted">in another browser</span>
                  )}{" "}
                  <button
                    type="button"
                    onClick={() => unbindPersonalKey(userId, i.kid).then(refresh, setError)}
                  >
                    Unbind
                  </button>
                </li>
              ))}
            </ul>
          );
        }}
      </Loaded>
      {local.isError && <ErrorNotice error={local.error} />}
      <button
        type="button"
        onClick={() => {
          setError(null);
          bindNewPersonalKey(userId, session.user.name ?? session.user.email).then(refresh, setError);
        }}
      >
        Make and bind a key in this browser
      </button>
      <label className="inline">
        Or import a bound key from its file (PKCS#8 PEM, such as <code>.data/demo-owner-key.pem</code> of{" "}
        <code>make run</code>){" "}
        <input
          type="file"
          accept=".pem,application/x-pem-file,text/plain"
          onChange={(e) => {
            const file = e.target.files?.[0];
            e.target.value = "";
            if (!file) return;
            setError(null);
            file
              .text()
              .then((pem) => importPersonalKey(userId, pem))
              .then(refresh, setError);
          }}
        />
      </label>
      <ErrorNotice error={error} />
    </section>
  );
}
