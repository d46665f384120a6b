// bridge.mjs connects the official TypeScript MCP SDK client to wright mcp
// and lets a Go test drive it: one JSON request a line on stdin, one JSON
// answer a line on stdout.
//
//   node bridge.mjs stdio COMMAND ARG...   (the client starts the server)
//   node bridge.mjs http URL               (bearer token in $WRIGHT_MCP_TOKEN)
//
// Requests: {"op":"list"}, {"op":"call","tool":T,"args":{...},
// "cancel_after":N, "cancel_delay_ms":D} (cancel D ms after the Nth
// progress notification), {"op":"resources"}, {"op":"read","uri":U},
// {"op":"close"}. Every answer carries the request's "id" and, for a call,
// the progress notifications the server sent for it.
//
// With $WRIGHT_TEST_SAMPLING (JSON: agent, an array of replies in turn, for
// requests whose system prompt holds agent_marker; judge_final for a judge
// request holding final_marker; judge_score for the others) the client
// offers sampling and answers sampling/createMessage from that script;
// {"op":"sampling_stats"} says what it was asked.
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, target, ...rest] = process.argv.slice(2);
let transport;
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: rest, env: { ...process.env }, stderr: "inherit" });
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.WRIGHT_MCP_TOKEN}` } },
  });
} else {
  console.error("usage: bridge.mjs stdio COMMAND ARG... | http URL");
  process.exit(2);
}

const script = process.env.WRIGHT_TEST_SAMPLING ? JSON.parse(process.env.WRIGHT_TEST_SAMPLING) : null;
const client = new Client({ name: "wright-test-bridge", version: "1.0.0" }, { capabilities: script ? { sampling: {} } : {} });
const stats = { requests: 0, agent: 0, judge: 0, images: 0, max_tokens: 0 };
if (script) {
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    const { systemPrompt = "", messages, maxTokens } = request.params;
    stats.requests++;
    stats.max_tokens = maxTokens;
    stats.images += messages.filter((m) => m.content.type === "image").length;
    const texts = messages.filter((m) => m.content.type === "text").map((m) => m.content.text).join("\n");
    let text;
    if (systemPrompt.includes(script.agent_marker)) {
      text = script.agent[Math.min(stats.agent, script.agent.length - 1)];
      stats.agent++;
    } else {
      stats.judge++;
      text = texts.includes(script.final_marker) ? script.judge_final : script.judge_score;
    }
    return { model: "bridge-script", role: "assistant", content: { type: "text", text }, stopReason: "endTurn" };
  });
}
await client.connect(transport);
const say = (o) => process.stdout.write(JSON.stringify(o) + "\n");
say({ op: "ready", server: client.getServerVersion(), pid: transport.pid ?? null });

async function call(req) {
  const progress = [];
  const ctl = new AbortController();
  const opts = {
    signal: ctl.signal,
    timeout: 600000,
    resetTimeoutOnProgress: true,
    onprogress: (p) => {
      progress.push(p);
      if (req.cancel_after && progress.length === req.cancel_after) {
        setTimeout(() => ctl.abort("cancelled by the test"), req.cancel_delay_ms ?? 0);
      }
    },
  };
  const started = Date.now();
  try {
    const result = await client.callTool({ name: req.tool, arguments: req.args ?? {} }, undefined, opts);
    return { result, progress, ms: Date.now() - started, chars: JSON.stringify(result).length };
  } catch (e) {
    return { error: String(e?.message ?? e), cancelled: ctl.signal.aborted, progress, ms: Date.now() - started };
  }
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const req = JSON.parse(line);
  let out;
  try {
    switch (req.op) {
      case "list": {
        const r = await client.listTools();
        out = { tools: r.tools, chars: JSON.stringify(r).length };
        break;
      }
      case "call":
        out = await call(req);
        break;
      case "sampling_stats":
        out = { stats };
        break;
      case "resources":
        out = await client.listResources();
        break;
      case "read":
        out = await client.readResource({ uri: req.uri });
        break;
      case "close":
        // Over HTTP a client that is done says so (DELETE), as a
        // well-behaved one does; the server then ends the session.
        if (typeof transport.terminateSession === "function") await transport.terminateSession();
        await client.close();
        say({ id: req.id, closed: true });
        process.exit(0);
      default:
        out = { error: `unknown op ${req.op}` };
    }
  } catch (e) {
    out = { error: String(e?.message ?? e) };
  }
  say({ id: req.id, ...out });
}
await client.close();
