/**
 * Small node:http servers on 127.0.0.1 that misbehave the ways a network or a
 * wrong URL can, for the client libraries' error tests. Each counts the
 * requests it received, so a test can prove what was (not) sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeServer {
  url: string;
  requests: number;
  /** Authorization headers received, to prove a key did (not) travel. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

export type Behaviour =
  /** Answers a redirect to `location`. */
  | { kind: "redirect"; status: number; location: string }
  /** Reads the whole request, then cuts the connection without answering. */
  | { kind: "cut" }
  /** Reads the request and never answers. */
  | { kind: "silent" }
  /** Answers the given status and body. */
  | { kind: "answer"; status: number; body: string; headers?: Record<string, string> };

export async function startFakeServer(behaviour: Behaviour): Promise<FakeServer> {
  const open = new Set<ServerResponse>();
  const state: FakeServer = {
    url: "",
    requests: 0,
    authorizations: [],
    close: async () => {
      for (const res of open) res.socket?.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    state.requests++;
    state.authorizations.push(req.headers.authorization);
    for await (const _ of req) void _;
    switch (behaviour.kind) {
      case "redirect":
        res.writeHead(behaviour.status, { location: behaviour.location }).end();
        return;
      case "cut":
        req.socket.destroy();
        return;
      case "silent":
        open.add(res);
        return;
      case "answer":
        res
          .writeHead(behaviour.status, { "content-type": "application/json", ...behaviour.headers })
          .end(behaviour.body);
        return;
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A port nothing listens on: a server started and closed. */
export async function closedPortUrl(): Promise<string> {
  const s = await startFakeServer({ kind: "answer", status: 200, body: "{}" });
  await s.close();
  return s.url;
}
