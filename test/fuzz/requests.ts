/**
 * Generated hostile requests (fast-check arbitraries) for the three surfaces:
 * POST /v1/authorize, POST /mcp and a sample of Cloud API routes. Every
 * request that could write carries at least one poison (a text-rule
 * violation, a duplicate member, bad JSON, a wrong type, an unknown member or
 * tool, a bad URL or key), so every one of them must be refused and nothing
 * may be recorded; read-only requests (lists, dry runs) get poison or not.
 */
import fc from "fast-check";
import { obj, places, raw, serialize, tree, withMember, type Json, type Name } from "./json-text.js";
import { DASHBOARD_ORIGIN, type FuzzWorld, type Session } from "./world.js";

export type Target = "authorize" | "mcp" | "api";

/** How fast-check prints a request in a counterexample: short, with the body as text. */
export function described(r: Omit<FuzzRequest, typeof fc.toStringMethod>): FuzzRequest {
  return Object.assign(r, {
    [fc.toStringMethod]: () =>
      `${r.method} ${r.path} [${r.poison}] ${r.body ? JSON.stringify(r.body.subarray(0, 400).toString("latin1")) : ""}`,
  });
}

export interface FuzzRequest {
  target: Target;
  /** The route, for the figures ("POST /v1/authorize", "GET lists", ...). */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** May succeed (2xx): reads and dry runs, which write nothing either way. */
  mayPass: boolean;
  /** What was done to it, for the report of a failure. */
  poison: string;
  [fc.toStringMethod]: () => string;
}

// ---- hostile text ----------------------------------------------------------------------------

const LONE = ["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\ud83d", "\\ude00\\ud83d"];
const BAD_BYTES = [
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xff],
  [0xfe],
  [0xc0, 0x80],
  [0xc1, 0xbf],
  [0xe0, 0x80, 0x80],
  [0xf5, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0x80],
  [0xe2, 0x82],
];

const plainText = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom(
    "",
    " ",
    "\ufffd",
    "😀",
    "é",
    "a\u200bb",
    "\u2028",
    "null",
    "0",
    "-1",
    "%00",
    "\\u0000",
    "'; drop table agents; --",
    "../..",
    "\t\n",
  ),
);

/** A JSON string (quoted) that breaks the text rule, with how it does. */
const hostileString: fc.Arbitrary<[Json, string]> = fc
  .tuple(plainText, plainText, fc.nat(5))
  .chain(([a, b, kind]) => {
    const quote = (s: string) => JSON.stringify(s).slice(1, -1);
    switch (kind) {
      case 0:
        return fc
          .constantFrom(...LONE)
          .map((l): [Json, string] => [raw(`"${quote(a)}${l}${quote(b)}"`), "lone surrogate escape"]);
      case 1:
        return fc.constant<[Json, string]>([raw(`"${quote(a)}\\u0000${quote(b)}"`), "U+0000 escape"]);
      case 2:
        return fc
          .constantFrom(...BAD_BYTES)
          .map((bytes): [Json, string] => [
            raw(`"${quote(a)}`, bytes, `${quote(b)}"`),
            `bytes ${bytes.map((x) => x.toString(16)).join(" ")}`,
          ]);
      case 3:
        return fc.constant<[Json, string]>([`${a}\u0000${b}`, "U+0000 (JSON.stringify)"]);
      case 4:
        return fc
          .constantFrom("\ud800", "\udfff")
          .map((l): [Json, string] => [`${a}${l}${b}`, "lone surrogate (JSON.stringify)"]);
      default:
        return fc.constant<[Json, string]>([
          raw(`"${quote(a)}\\uD800\\u0041${quote(b)}"`),
          "high surrogate before a non-surrogate",
        ]);
    }
  });

/** Tool arguments: a small refund the policy would allow, plus generated members. */
const arguments_ = (extra: Record<string, Json>): Json =>
  obj([["order", "o-1"], ["amount", 5], ...Object.entries(extra)]);

const jsonish = fc.jsonValue({ maxDepth: 2 }).map(tree);

/** Any JSON-looking value, hostile text included. */
const anyValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: jsonish },
  { weight: 1, arbitrary: hostileString.map(([v]) => v) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Json>(1.5, -0, 2 ** 53, -(2 ** 60), 1e308, "1e999", [], obj([]), true, null),
  },
);

// ---- poison ---------------------------------------------------------------------------------

/** What makes a body certainly refused: the change to the tree, or a body that is not that tree. */
type Poison = { name: string; apply: (body: Json) => { body: Buffer; headers?: Record<string, string> } };

function poisonArb(extraInvalid: fc.Arbitrary<Poison>[] = []): fc.Arbitrary<Poison> {
  const textIn = (where: "value" | "name") =>
    fc.tuple(fc.nat(), hostileString, anyValue).map(([pick, [h, how], v]): Poison => ({
      name: `text in a ${where}: ${how}`,
      apply: (body) => {
        const p = places(body);
        if (where === "name" && p.members.length)
          return { body: serialize(p.members[pick % p.members.length]!(h as Name, v)) };
        return { body: serialize(p.values[pick % p.values.length]!(h)) };
      },
    }));
  return fc.oneof(
    // A value anywhere replaced by hostile text.
    { weight: 6, arbitrary: textIn("value") },
    // A member named with hostile text.
    { weight: 3, arbitrary: textIn("name") },
    // A member named twice.
    {
      weight: 4,
      arbitrary: fc.tuple(fc.nat(), anyValue).map(([pick, v]): Poison => ({
        name: "duplicate member",
        apply: (body) => {
          const p = places(body);
          return {
            body: serialize(
              p.duplicates.length
                ? p.duplicates[pick % p.duplicates.length]!(v)
                : p.values[0]!(raw('{"a":1,"a":2}')),
            ),
          };
        },
      })),
    },
    // Not JSON at all, or cut short.
    {
      weight: 3,
      arbitrary: fc.tuple(fc.nat(), fc.uint8Array({ maxLength: 8 })).map(([cut, junk]): Poison => ({
        name: "broken JSON",
        apply: (body) => {
          const text = serialize(body);
          const at = text.length ? cut % text.length : 0;
          // A control character ends it: invalid inside a string and outside one, whatever the cut and the junk.
          return { body: Buffer.concat([text.subarray(0, at), Buffer.from(junk), Buffer.from([0x01])]) };
        },
      })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Poison>({ name: "empty body", apply: () => ({ body: Buffer.alloc(0) }) }),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x",
          "application/jsonx",
          "",
        )
        .map((type): Poison => ({
          name: `content type ${type || "(none)"}`,
          apply: (body) => ({ body: serialize(body), headers: { "content-type": type } }),
        })),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Poison>({
        name: "body over 1 MiB",
        apply: (body) => ({ body: serialize(withMember(body, "pad", "x".repeat(1024 * 1024 + 10))) }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constant<Poison>({
        name: "deep nesting",
        apply: (body) => ({
          body: serialize(places(body).values.at(-1)!(raw("[".repeat(40) + "]".repeat(40)))),
        }),
      }),
    },
    ...extraInvalid.map((arbitrary) => ({ weight: 2, arbitrary })),
  );
}

const unknownMember = fc
  .constantFrom("extra", "Tool", "arguments ", "__proto__", "constructor")
  .map((name): Poison => ({
    name: `unknown member ${name}`,
    apply: (body) => ({ body: serialize(withMember(body, name, 1)) }),
  }));

// ---- URLs and headers -------------------------------------------------------------------------

/** A path segment or query value as an attacker percent-encodes it. */
const hostileUrlText = fc.oneof(
  fc.constantFrom(
    "%00",
    "%ZZ",
    "%",
    "%E0%80",
    "%ED%A0%80",
    "%FF",
    "%C3",
    "%25",
    "%2F..%2F",
    "x".repeat(101),
    "a%00b",
    "%F0%9F%98%80",
  ),
  fc
    .uint8Array({ minLength: 1, maxLength: 12 })
    .map((b) => [...b].map((x) => `%${x.toString(16).padStart(2, "0")}`).join("")),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
);

const hostileAuthorization = fc.oneof(
  fc.constantFrom(
    "",
    "Bearer",
    "Bearer ",
    "Basic YTpi",
    "bearer svc_live_",
    "Bearer svc_live_aaaaaaaaaaaa_" + "A".repeat(43),
  ),
  fc
    .uint8Array({ minLength: 1, maxLength: 60 })
    .map((b) => `Bearer ${Buffer.from(b.filter((x) => x >= 0x20 && x !== 0x7f)).toString("latin1")}`),
);

// ---- the three surfaces -----------------------------------------------------------------------

/** A value one time in ten, else undefined. */
const rarely = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: a });

const pickOf = <T>(xs: T[]) => fc.nat(xs.length - 1).map((i) => xs[i]!);

function gatewayHeaders(w: FuzzWorld, key: string, extra: Record<string, string> = {}) {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    authorization: `Bearer ${key}`,
    ...extra,
  };
}

export function authorizeRequests(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const tool = fc.oneof(
    { weight: 4, arbitrary: fc.constant(w.world.tool) },
    { weight: 1, arbitrary: plainText },
  );
  const args = fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 5 }).map((d) => arguments_(d));
  const template = fc
    .record({
      tool,
      args,
      key: fc.option(plainText, { nil: undefined }),
      wait: fc.option(fc.constantFrom(0, -1, 1.5, "0", 61), { nil: undefined }),
    })
    .map(({ tool: t, args: a, key, wait }) => {
      let body: Json = obj([
        ["tool", t],
        ["arguments", a],
      ]);
      if (key !== undefined) body = withMember(body, "idempotency_key", key);
      if (wait !== undefined) body = withMember(body, "wait_seconds", wait);
      return body;
    });
  const wrongType = fc
    .tuple(
      fc.constantFrom("tool", "arguments", "idempotency_key", "wait_seconds"),
      fc.constantFrom<Json>(null, -1, [], "x".repeat(300), obj([]), 1.5),
    )
    .map(([m, v]): Poison => ({
      name: `${m} of a wrong type`,
      apply: (body) => ({
        body: serialize(
          withMember(body, m, m === "arguments" && v !== null && typeof v === "object" ? [] : v),
        ),
      }),
    }));
  const argumentLimits = fc
    .constantFrom<[string, Json]>(
      ["decimal number", tree({ amount: 1.5 })],
      ["number beyond 2^53", raw('{"amount":9007199254740993}')],
      ["names differing by case", tree({ Amount: 1, amount: 2 })],
      ["29 levels", raw('{"a":'.repeat(29) + "1" + "}".repeat(29))],
    )
    .map(([name, a]): Poison => ({
      name: `arguments: ${name}`,
      apply: (body) => ({ body: serialize(withMember(body, "arguments", a)) }),
    }));
  const unknownTool = plainText.map((t): Poison => ({
    name: "a tool that does not exist",
    apply: (body) => ({ body: serialize(withMember(body, "tool", `no-such-${t}`)) }),
  }));
  return fc
    .record({
      body: template,
      poison: poisonArb([wrongType, argumentLimits, unknownTool, unknownMember]),
      key: pickOf(w.gatewayKeys),
      url: fc.oneof(
        { weight: 9, arbitrary: fc.constant("/v1/authorize") },
        { weight: 1, arbitrary: hostileUrlText.map((t) => `/v1/authorize?x=${t}`) },
        { weight: 1, arbitrary: hostileUrlText.map((t) => `/v1/${t}`) },
      ),
      auth: rarely(hostileAuthorization),
    })
    .map(({ body, poison, key, url, auth }) => {
      const applied = poison.apply(body);
      const headers = gatewayHeaders(w, key, applied.headers);
      if (auth !== undefined) headers.authorization = auth;
      return described({
        target: "authorize" as const,
        route: "POST /v1/authorize",
        method: "POST",
        path: url,
        headers,
        body: applied.body,
        mayPass: false,
        poison: `${poison.name}${auth !== undefined ? " + bad key" : ""}`,
      });
    });
}

export function mcpRequests(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const id = fc.oneof(fc.integer(), fc.string({ maxLength: 6 }), fc.constant(null));
  const meta = fc.option(
    fc.dictionary(
      fc.constantFrom("service/idempotency-key", "service/wait-seconds", "service/other", "progressToken"),
      anyValue,
      { maxKeys: 2 },
    ),
    { nil: undefined },
  );
  const call = fc
    .record({
      id,
      name: fc.oneof(fc.constant(w.world.tool), plainText),
      args: fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 4 }),
      meta,
    })
    .map(({ id: i, name, args, meta: m }) => {
      const params: [Name, Json][] = [
        ["name", name],
        ["arguments", obj(Object.entries(args))],
      ];
      if (m) params.push(["_meta", obj(Object.entries(m))]);
      return obj([
        ["jsonrpc", "2.0"],
        ["id", i],
        ["method", "tools/call"],
        ["params", obj(params)],
      ]);
    });
  const other = fc
    .record({
      id,
      method: fc.oneof(
        fc.constantFrom(
          "tools/list",
          "initialize",
          "ping",
          "notifications/initialized",
          "resources/list",
          "prompts/get",
          "tools/call",
        ),
        plainText,
      ),
      params: fc.option(jsonish, { nil: undefined }),
    })
    .map(({ id: i, method, params }) => {
      const members: [Name, Json][] = [
        ["jsonrpc", "2.0"],
        ["id", i],
        ["method", method],
      ];
      if (params !== undefined) members.push(["params", params]);
      return obj(members);
    });
  const message = fc.oneof({ weight: 4, arbitrary: call }, { weight: 2, arbitrary: other });
  const batch = fc.array(message, { minLength: 0, maxLength: 3 }).map((ms): Json => ms);
  return fc
    .record({
      body: fc.oneof({ weight: 8, arbitrary: message }, { weight: 1, arbitrary: batch }),
      poison: fc.option(poisonArb(), { freq: 5, nil: undefined }),
      key: pickOf(w.gatewayKeys),
      url: fc.oneof(
        { weight: 9, arbitrary: fc.constant("/mcp") },
        { weight: 1, arbitrary: hostileUrlText.map((t) => `/mcp?x=${t}`) },
      ),
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant("POST") },
        { weight: 1, arbitrary: fc.constantFrom("GET", "OPTIONS", "TRACE", "PUT", "DELETE", "PATCH") },
      ),
      accept: rarely(fc.constantFrom("application/json", "text/event-stream", "*/*")),
      auth: rarely(hostileAuthorization),
    })
    .map(({ body, poison, key, url, method, accept, auth }) => {
      const applied = poison ? poison.apply(body) : { body: serialize(body) };
      const headers = gatewayHeaders(w, key, applied.headers);
      if (accept !== undefined) headers.accept = accept;
      if (auth !== undefined) headers.authorization = auth;
      // The tool is decision-only: a tools/call of it is refused DECISION_ONLY_TOOL, so nothing may run or be recorded.
      return described({
        target: "mcp" as const,
        route: `${method} /mcp`,
        method,
        path: url,
        headers,
        body: ["POST", "PUT", "PATCH"].includes(method) ? applied.body : undefined,
        mayPass: true,
        poison: poison?.name ?? "none",
      });
    });
}

function sessionHeaders(s: Session, ip: string, write: boolean): Record<string, string> {
  const h: Record<string, string> = { cookie: s.cookie, "x-forwarded-for": ip };
  if (write)
    Object.assign(h, {
      origin: DASHBOARD_ORIGIN,
      "x-service-csrf": s.csrf,
      "content-type": "application/json",
    });
  return h;
}

const ip = fc
  .tuple(fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 }))
  .map(([a, b, c]) => `10.${a}.${b}.${c}`);

export function apiRequests(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const org = w.world.organizationId;
  const base = `/api/v1/orgs/${org}`;
  const nameBody = (extra: [Name, Json][]) =>
    plainText.map((n) => obj([["name", n.trim() || "n"], ...extra]));
  const tooLong = fc.constant<Poison>({
    name: "name of 201 characters",
    apply: (b) => ({ body: serialize(withMember(b, "name", "x".repeat(201))) }),
  });
  const lines = fc.constantFrom("a\nb", "a\rb", "\u0085", "tab\there").map((n): Poison => ({
    name: "name with a control character",
    apply: (b) => ({ body: serialize(withMember(b, "name", n)) }),
  }));
  const writes = fc.oneof(
    fc
      .record({
        body: nameBody([]),
        poison: poisonArb([tooLong, lines, unknownMember]),
        s: pickOf(w.ownerSessions),
        ip,
      })
      .map(({ body, poison, s, ip: a }) => {
        const applied = poison.apply(body);
        return described({
          target: "api" as const,
          route: "POST agents",
          method: "POST",
          path: `${base}/agents`,
          headers: { ...sessionHeaders(s, a, true), ...applied.headers },
          body: applied.body,
          mayPass: false,
          poison: poison.name,
        });
      }),
    fc
      .record({
        body: nameBody([
          ["kind", "gateway"],
          ["agent_id", w.world.agentId],
        ]),
        poison: poisonArb([tooLong, lines, unknownMember]),
        s: pickOf(w.ownerSessions),
        ip,
      })
      .map(({ body, poison, s, ip: a }) => {
        const applied = poison.apply(body);
        return described({
          target: "api" as const,
          route: "POST api-keys",
          method: "POST",
          path: `${base}/api-keys`,
          headers: { ...sessionHeaders(s, a, true), ...applied.headers },
          body: applied.body,
          mayPass: false,
          poison: poison.name,
        });
      }),
    fc
      .record({
        body: jsonish.map((j) => obj([["object", j]])),
        poison: fc.option(poisonArb(), { freq: 3, nil: undefined }),
        s: pickOf(w.approverSessions),
        ip,
        target: fc.oneof(
          { weight: 4, arbitrary: fc.constant(w.approvalRequestId) },
          { weight: 1, arbitrary: hostileUrlText },
        ),
      })
      .map(({ body, poison, s, ip: a, target }) => {
        const applied = poison ? poison.apply(body) : { body: serialize(body) };
        // Without a signature by the approver's personal key no decision can pass: every one is refused.
        return described({
          target: "api" as const,
          route: "POST approval decision",
          method: "POST",
          path: `${base}/approvals/${target}/decision`,
          headers: { ...sessionHeaders(s, a, true), ...applied.headers },
          body: applied.body,
          mayPass: false,
          poison: poison?.name ?? "unsigned",
        });
      }),
  );
  const dryRun = fc
    .record({
      tool: fc.oneof(fc.constant(w.world.tool), plainText),
      args: fc.dictionary(fc.string({ maxLength: 6 }), anyValue, { maxKeys: 4 }),
      poison: fc.option(poisonArb(), { freq: 2, nil: undefined }),
      key: pickOf(w.readKeys),
      ip,
    })
    .map(({ tool, args, poison, key, ip: a }) => {
      const body = obj([
        ["tool", tool],
        ["arguments", arguments_(args)],
      ]);
      const applied = poison ? poison.apply(body) : { body: serialize(body) };
      return described({
        target: "api" as const,
        route: "POST dry-run",
        method: "POST",
        path: `${base}/agents/${w.world.agentId}/dry-run`,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "x-forwarded-for": a,
          ...applied.headers,
        },
        body: applied.body,
        mayPass: true,
        poison: poison?.name ?? "none",
      });
    });
  const cursor = fc.oneof(
    fc
      .tuple(
        fc.oneof(
          plainText,
          fc.constantFrom(
            "",
            "not-a-date",
            "99999999-01-01T00:00:00.000Z",
            "2024-02-30T00:00:00.000Z",
            "0000-01-01T00:00:00.000Z",
            new Date().toISOString(),
          ),
        ),
        fc.oneof(fc.uuid(), plainText),
      )
      .map((t) => Buffer.from(JSON.stringify(t)).toString("base64url")),
    hostileString.map(([v]) =>
      serialize([v as Json, "00000000-0000-4000-8000-000000000000"]).toString("base64url"),
    ),
    fc.jsonValue({ maxDepth: 1 }).map((v) => Buffer.from(JSON.stringify(v) ?? "").toString("base64url")),
    fc.constantFrom("%00", "%ZZ", "!!", "", Buffer.from("99999999999999999999999").toString("base64url")),
  );
  const filter = fc.tuple(
    fc.constantFrom(
      "tool",
      "outcome",
      "action",
      "status",
      "kind",
      "agent_id",
      "limit",
      "since",
      "until",
      "state",
      "enabled",
      "extra",
    ),
    fc.oneof(hostileUrlText, plainText.map(encodeURIComponent)),
  );
  const list = fc
    .record({
      path: fc.constantFrom(
        "actions",
        "receipts",
        "agents",
        "tools",
        "approvals",
        "mcp-servers",
        "policies",
        "api-keys",
        "audit",
        "observe-windows",
        "webhooks",
      ),
      cursor: fc.option(cursor, { nil: undefined }),
      filters: fc.array(filter, { maxLength: 2 }),
      s: pickOf(w.ownerSessions),
      ip,
    })
    .map(({ path, cursor: c, filters, s, ip: a }) => {
      const q = [
        ...(c !== undefined ? [["cursor", encodeURIComponent(c).replace(/%25(00|ZZ)/g, "%$1")]] : []),
        ...filters,
      ]
        .map(([k, v]) => `${k}=${v}`)
        .join("&");
      return described({
        target: "api" as const,
        route: "GET lists",
        method: "GET",
        path: `${base}/${path}${q ? `?${q}` : ""}`,
        headers: sessionHeaders(s, a, false),
        mayPass: true,
        poison: "cursor and filters",
      });
    });
  const detail = fc
    .record({
      path: fc.constantFrom(
        "agents",
        "tools",
        "actions",
        "receipts",
        "approvals",
        "policies",
        "mcp-servers",
        "webhooks",
      ),
      id: hostileUrlText,
      s: pickOf(w.ownerSessions),
      ip,
    })
    .map(({ path, id: i, s, ip: a }) =>
      described({
        target: "api" as const,
        route: "GET by malformed id",
        method: "GET",
        path: `${base}/${path}/${i}`,
        headers: sessionHeaders(s, a, false),
        mayPass: true,
        poison: "path id",
      }),
    );
  return fc.oneof(
    { weight: 4, arbitrary: writes },
    { weight: 2, arbitrary: dryRun },
    { weight: 3, arbitrary: list },
    { weight: 1, arbitrary: detail },
  );
}

export function fuzzRequests(w: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 4, arbitrary: authorizeRequests(w) },
    { weight: 3, arbitrary: mcpRequests(w) },
    { weight: 3, arbitrary: apiRequests(w) },
  );
}
