import { sha256Digest } from "@countersign/protocol/canonical";
import { useState } from "react";
import { COLLAPSED_CHARACTERS, indentJson, topLevelMembers } from "./call-arguments.js";

/** One argument's value: in full when short, else its start with how much more there is, expandable. */
function Value({ name, raw }: { name: string; raw: string }) {
  const [open, setOpen] = useState(false);
  const text = indentJson(raw);
  if (text.length <= COLLAPSED_CHARACTERS) return <pre className="argument-value">{text}</pre>;
  return (
    <>
      <pre className="argument-value" data-collapsed={!open}>
        {open ? text : `${text.slice(0, COLLAPSED_CHARACTERS)}…`}
      </pre>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open
          ? `Collapse ${name}`
          : `Show all of ${name} (${text.length - COLLAPSED_CHARACTERS} more characters)`}
      </button>
    </>
  );
}

/**
 * The exact arguments of the held call, checked in this browser against the digest the Gateway
 * signed in the TASK (`arguments_digest`, restated by the PROPOSAL the person answers): what the
 * person reads is what they sign for, or the page says it is not.
 */
export function CallArguments({
  text,
  signedDigest,
}: {
  text: string | null;
  signedDigest: string | undefined;
}) {
  if (text === null)
    return (
      <p className="muted" data-testid="call-arguments" data-state="unavailable">
        The arguments are not available here: only the people who may decide this request see them, and only
        while it is kept. The digest below is what the call is bound to.
      </p>
    );
  const matches = signedDigest !== undefined && sha256Digest(text) === signedDigest;
  const members = topLevelMembers(text);
  return (
    <div data-testid="call-arguments" data-state={matches ? "verified" : "mismatch"}>
      {matches ? (
        <p className="ok">These are the exact arguments signed in the call's TASK (their digest matches).</p>
      ) : (
        <p className="error" role="alert" data-code="DISCLOSURE_MISMATCH">
          These arguments do not match the digest signed in the call's TASK: do not approve.
        </p>
      )}
      {members === null ? (
        <Value name="the arguments" raw={text} />
      ) : members.length === 0 ? (
        <p className="muted">The call has no arguments.</p>
      ) : (
        <table className="arguments">
          <tbody>
            {members.map(([name, raw]) => (
              <tr key={name} data-argument={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <Value name={name} raw={raw} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
