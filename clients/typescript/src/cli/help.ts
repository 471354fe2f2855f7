/** Help for every command of `countersign` (exit statuses: cloud/exit-codes.ts, docs/clients.md). */
import { usage as verifyUsage } from "./args.js";

const common = `Common options:
  --json          print the Cloud API's answer as JSON
  --org ORG_ID    the organization (default COUNTERSIGN_ORG, then the session's current organization)
  --url URL       the Cloud API base URL (with COUNTERSIGN_MANAGEMENT_KEY; default COUNTERSIGN_URL)
Credentials: COUNTERSIGN_MANAGEMENT_KEY from the environment, else the session of \`countersign signin\`.
Exit status: 0 done, 1 refused by the Cloud API, 2 usage error or local file problem,
3 not signed in or credentials refused, 4 Cloud API unreachable or failing.`;

export const help: Record<string, string> = {
  "": `Usage: countersign COMMAND [ARGS] [OPTIONS]

Commands:
  verify FILE.svcbundle            verify an evidence bundle offline
  signin --url URL --email EMAIL   sign in (password from --password-stdin or COUNTERSIGN_PASSWORD)
  signout                          end the stored session
  identity create                  create a personal Ed25519 key file (mode 0600)
  identity bind                    bind the personal key to your account
  approvals list|show|approve|reject
  receipts get|download
  actions cancel ID --principal-key-file FILE
  principal create|register|replace|show
                                   the organization principal's key file, registration, replacement
  delegations grant|list|revoke    an agent's delegations, signed with the principal's key file
  policy validate|test|diff FILE   policy files offline: validate, run saved examples, compare

Run \`countersign COMMAND --help\` for a command's options.
${common}`,
  verify: verifyUsage,
  signin: `Usage: countersign signin --url URL --email EMAIL [--password-stdin] [--dashboard-origin ORIGIN]

Signs in with e-mail and password and stores the session (mode 0600) in $COUNTERSIGN_CONFIG_DIR
(default ~/.config/countersign/session.json). The password is read from standard input with
--password-stdin, else from COUNTERSIGN_PASSWORD; it is never a flag. Unsafe requests carry the
dashboard's Origin: --dashboard-origin or COUNTERSIGN_DASHBOARD_ORIGIN, default the URL's origin.
${common}`,
  signout: `Usage: countersign signout

Ends the stored session on the Cloud API and deletes it locally.
${common}`,
  identity: `Usage: countersign identity create|bind [--key-file FILE]

  create   writes a new Ed25519 personal key to FILE (default $COUNTERSIGN_KEY_FILE, then
           ~/.config/countersign/personal-key.json), mode 0600, never over an existing file
  bind     binds the key to the signed-in person (POST /me/identity-challenges, /me/identities);
           --name NAME sets the name in the identity document
${common}`,
  approvals: `Usage: countersign approvals list [--status STATUS] [--agent-id ID] [--limit N] [--cursor C]
       countersign approvals show ID
       countersign approvals approve ID [--key-file FILE]
       countersign approvals reject ID [--key-file FILE] [--reason TEXT]

approve and reject sign an APPROVAL or REJECTION of the request's proposal with your personal key
(it must have been bound before the request was created) and need a signed-in session.
${common}`,
  receipts: `Usage: countersign receipts get ID
       countersign receipts download ID [--out FILE]

download saves the bundle (default receipt-<receipt_object_id>.svcbundle) only when its SHA-256
matches the Cloud API's x-service-bundle-sha256; it never overwrites a file.
${common}`,
  actions: `Usage: countersign actions cancel ID --principal-key-file FILE [--reason TEXT]

Cancels a pending or approved action with a CANCELLATION signed by the organization principal's
key (PKCS#8 PEM: the dashboard's key backup or the file \`principal create\` writes). Needs a signed-in owner or admin.
${common}`,
  principal: `Usage: countersign principal create --key-file FILE
       countersign principal register --key-file FILE [--name NAME] [--pem-out FILE]
       countersign principal replace --key-file NEW_FILE [--old-key-file FILE] [--name NAME]
       countersign principal show

  A principal key file is PKCS#8 PEM: the dashboard's "Download the key backup" file, and what the
  Secret an Organization resource names holds:
    kubectl create secret generic org-principal --from-file=private-key.pem=FILE

  create    writes a new Ed25519 key for the organization principal to FILE, mode 0600, never over
            an existing file
  register  signs the principal's identity document with the key and sets it as the organization's
            principal (POST /orgs/<id>/principal; a signed-in owner). --pem-out FILE also writes a
            copy of the key (mode 0600)
  replace   puts the key in NEW_FILE in place of the current principal (a signed-in owner). With
            --old-key-file the current principal's key also signs that it was replaced; leave it
            out when that key is lost. Delegations signed by the old principal stop authorizing:
            grant them again with the new key file
  show      the current principal's KID, status and validity
${common}`,
  delegations: `Usage: countersign delegations grant --agent AGENT --permissions LIST (--expires-in DURATION | --expires-at TIME) --principal-key-file FILE
       countersign delegations list --agent AGENT [--limit N] [--cursor C]
       countersign delegations revoke ID --agent AGENT --principal-key-file FILE

  grant    signs a DELEGATION of LIST (comma-separated action names, prefix.* families or *) to the
           agent until the expiry (DURATION: 90m, 12h, 30d) with the organization principal's key file
           (PKCS#8 PEM: the dashboard's key backup or \`principal create\`'s file; the key never leaves this machine) and submits it
  list     the agent's delegations, newest first: id, state (active, expired, revoked), expiry
  revoke   signs a REVOCATION of delegation ID with the same principal's key file and submits it
AGENT is the agent's id or name. grant and revoke need a signed-in owner or admin.
${common}`,
  policy: `Usage: countersign policy validate FILE [--json]
       countersign policy test FILE [--examples FILE] [--json]
       countersign policy diff A B [--json]

Offline: nothing is sent anywhere. FILE is a policy document (JSON or YAML) or a YAML file of
countersign.dev Policy resources (as in config/samples/policy.yaml); every Policy in it is checked.
  validate  the document against the policy language (docs/policy-language.md), with lint warnings
  test      runs the saved examples (the Policy's spec.examples, or --examples FILE: a YAML or JSON
            list in either the Cloud API's or the resource's member names) with the evaluator the
            Gateway uses; a failing example prints its expected and actual outcome and rule
  diff      what changed from A to B, rule by rule (added, removed, changed, moved)
Exit status: 0 valid / every example passed / identical, 1 invalid / an example failed /
different, 2 usage error or a file that cannot be read or holds no policy.`,
};
