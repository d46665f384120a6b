// driver.mjs is the one MCP client both servers are measured through: the
// official TypeScript SDK's Client over stdio. bench/measure/mcpcompare
// starts it and talks to it one JSON object a line: it decides what to call,
// this script only calls and times.
//
// Requests (each answered by one line carrying the request's "id"):
//   {"op":"start","server":S,"command":C,"args":[...],"cwd":D,"env":{...}}
//   {"op":"list","server":S}            -> {"chars":N,"names":[...]}
//   {"op":"call","server":S,"tool":T,"args":{...}}
//                                       -> {"ms":F,"chars":N,"result":{...}}
//   {"op":"stop","server":S}
// chars is the length of the JSON of what the server answered: the part
// of the exchange a client hands on to its model.
import { createInterface } from "node:readline";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const servers = new Map();
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");

async function handle(req) {
  switch (req.op) {
    case "start": {
      const transport = new StdioClientTransport({
        command: req.command,
        args: req.args ?? [],
        cwd: req.cwd,
        env: { ...process.env, ...(req.env ?? {}) },
        stderr: "inherit",
      });
      const client = new Client({ name: "wright-mcpcompare", version: "1.0.0" });
      await client.connect(transport);
      servers.set(req.server, client);
      return { server: client.getServerVersion() };
    }
    case "list": {
      const answer = await servers.get(req.server).listTools();
      return { chars: JSON.stringify(answer).length, names: answer.tools.map((t) => t.name) };
    }
    case "call": {
      const client = servers.get(req.server);
      const started = performance.now();
      const result = await client.callTool({ name: req.tool, arguments: req.args ?? {} }, undefined, { timeout: 120000 });
      const ms = performance.now() - started;
      return { ms, chars: JSON.stringify(result).length, result };
    }
    case "stop": {
      const client = servers.get(req.server);
      servers.delete(req.server);
      if (client) await client.close();
      return {};
    }
    default:
      throw new Error(`unknown op ${req.op}`);
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  try {
    say({ id: req.id, ...(await handle(req)) });
  } catch (e) {
    say({ id: req.id, error: String(e?.stack ?? e) });
  }
}
// stdin closed: the Go side is done (or gone); end every server with us.
for (const client of servers.values()) await client.close().catch(() => {});
