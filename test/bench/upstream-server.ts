/**
 * The sample upstream MCP server in a process of its own for `make bench`,
 * so the direct calls and the Gateway's calls do not share the load
 * generator's event loop with it. Prints its URL on the first line.
 */
import { startSampleUpstream } from "../../local/src/sample-upstream.js";

const upstream = await startSampleUpstream("127.0.0.1", 0);
console.log(upstream.url);
process.on("SIGTERM", () => void upstream.stop().then(() => process.exit(0)));
