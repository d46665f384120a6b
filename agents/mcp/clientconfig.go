package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// TokenEnv is the variable `wright mcp --http` takes its bearer token from
// when it is set (a fixed token a client's config can name), instead of
// making a new one.
const TokenEnv = "WRIGHT_MCP_TOKEN"

// Client is an MCP client wright knows how to configure.
type Client struct {
	Name string
	// File is where its config usually lives.
	File string
	// snippet makes the config text.
	snippet func(c ClientSetup) (string, error)
}

// ClientSetup is what a client's config says about wright.
type ClientSetup struct {
	// Command is the wright binary (default "wright"); Args follow "mcp".
	Command string
	Args    []string
	// URL, when set, configures the streamable HTTP transport at that
	// address instead of stdio; the token is read from TokenEnv by the
	// client where it can expand variables.
	URL string
}

func (c ClientSetup) command() string {
	if c.Command == "" {
		return "wright"
	}
	return c.Command
}

func (c ClientSetup) args() []string { return append([]string{"mcp"}, c.Args...) }

// Clients are the clients `wright mcp config --agent` knows, by name.
var Clients = map[string]Client{
	"claude":  {"claude", ".mcp.json (project) or `claude mcp add`", claudeSnippet},
	"codex":   {"codex", "~/.codex/config.toml", codexSnippet},
	"copilot": {"copilot", "~/.copilot/mcp-config.json (Copilot CLI)", copilotSnippet},
	"cursor":  {"cursor", ".cursor/mcp.json (project) or ~/.cursor/mcp.json", cursorSnippet},
	"vscode":  {"vscode", ".vscode/mcp.json (Copilot in VS Code)", vscodeSnippet},
}

// ClientNames lists Clients' keys, sorted.
func ClientNames() []string {
	var out []string
	for n := range Clients {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Snippet is the config text client needs to start or reach wright's MCP
// server, and the file it goes in.
func Snippet(client string, c ClientSetup) (text, file string, err error) {
	cl, ok := Clients[client]
	if !ok {
		return "", "", fmt.Errorf("no client %q: use one of %s", client, strings.Join(ClientNames(), ", "))
	}
	text, err = cl.snippet(c)
	return text, cl.File, err
}

func indentJSON(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// bearer is the Authorization header's value with the client's own way of
// naming a variable.
func bearer(ref string) map[string]string { return map[string]string{"Authorization": "Bearer " + ref} }

func claudeSnippet(c ClientSetup) (string, error) {
	srv := map[string]any{"command": c.command(), "args": c.args()}
	if c.URL != "" {
		srv = map[string]any{"type": "http", "url": c.URL, "headers": bearer("${" + TokenEnv + "}")}
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{"wright": srv}})
}

func cursorSnippet(c ClientSetup) (string, error) {
	srv := map[string]any{"command": c.command(), "args": c.args()}
	if c.URL != "" {
		srv = map[string]any{"url": c.URL, "headers": bearer("${env:" + TokenEnv + "}")}
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{"wright": srv}})
}

func copilotSnippet(c ClientSetup) (string, error) {
	srv := map[string]any{"type": "local", "command": c.command(), "args": c.args(), "tools": []string{"*"}}
	if c.URL != "" {
		srv = map[string]any{"type": "http", "url": c.URL, "headers": bearer("${" + TokenEnv + "}"), "tools": []string{"*"}}
	}
	return indentJSON(map[string]any{"mcpServers": map[string]any{"wright": srv}})
}

func vscodeSnippet(c ClientSetup) (string, error) {
	srv := map[string]any{"type": "stdio", "command": c.command(), "args": c.args()}
	out := map[string]any{"servers": map[string]any{"wright": srv}}
	if c.URL != "" {
		out["servers"] = map[string]any{"wright": map[string]any{"type": "http", "url": c.URL, "headers": bearer("${input:wright-token}")}}
		out["inputs"] = []map[string]any{{"type": "promptString", "id": "wright-token", "description": "the token wright mcp --http printed", "password": true}}
	}
	return indentJSON(out)
}

func codexSnippet(c ClientSetup) (string, error) {
	var b strings.Builder
	b.WriteString("[mcp_servers.wright]\n")
	if c.URL != "" {
		fmt.Fprintf(&b, "url = %s\nbearer_token_env_var = %s\n", strconv.Quote(c.URL), strconv.Quote(TokenEnv))
		return b.String(), nil
	}
	var quoted []string
	for _, a := range c.args() {
		quoted = append(quoted, strconv.Quote(a))
	}
	fmt.Fprintf(&b, "command = %s\nargs = [%s]\n", strconv.Quote(c.command()), strings.Join(quoted, ", "))
	// A whole run can take minutes: the default tool timeout is shorter.
	b.WriteString("tool_timeout_sec = 1800\n")
	return b.String(), nil
}
