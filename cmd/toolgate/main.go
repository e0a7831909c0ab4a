// Command toolgate lists and calls the tools of MCP servers.
//
// Usage:
//
//	toolgate [--config FILE] tools [--json]
//	toolgate [--config FILE] call SERVER TOOL [ARGS_JSON | -]
//	toolgate [--config FILE] call --batch < requests.jsonl
//
// Without --config it reads ./toolgate.json if present, else an embedded
// default config of demo servers built into this binary.
package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/demo"
)

//go:embed default.json
var defaultConfig []byte

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // the call returned an error
	exitUsage = 2 // usage or config error
)

const usage = `toolgate: a tool gateway for AI agents over MCP servers.

Usage:
  toolgate [--config FILE] tools [--json [--seed]]
  toolgate [--config FILE] call SERVER TOOL [ARGS_JSON | -]
  toolgate [--config FILE] call --batch
  toolgate [--config FILE] policy check SERVER TOOL [ARGS_JSON | -]
  toolgate fetch URL    print the page as Markdown (env TOOLGATE_FETCH_MAIN=1: main content only; TOOLGATE_FETCH_ALLOW=HOST,CIDR: allow loopback/private)

Commands:
  tools   list every configured server and its tools (a failing server is
          listed with its error); --json prints JSON, --seed in the original
          ToolManager's shape (errors inside "tools")
  call    call one tool and print its Result as JSON; ARGS_JSON is a JSON
          object, "-" reads it from stdin. With --batch, read JSON Lines
          {"server": ..., "tool": ..., "arguments": {...}} from stdin and
          print one Result per line, in order, over one set of sessions.
  policy  "policy check" prints what the allow/deny lists and policy rules
          decide for a call, and the rule that decided, without calling
          anything; exit 1 when the call would be refused.

Flags --agent NAME and --role ROLE name the caller for policy rules (for
tools, call and policy check).

Config: --config FILE, else ./toolgate.json if present, else the embedded
default: demo servers (text, calc, clock) built into this binary.

Set TOOLGATE_LOG=info (or debug) to print the step log on stderr.

Exit codes: 0 success, 1 the call returned an error, 2 usage or config error.

Examples:
  toolgate tools
  toolgate call calc evaluate '{"expression": "(1 << 20) / 3.0"}'
  echo '{"text": "hello world"}' | toolgate call text word_count -
  printf '%s\n' '{"server":"clock","tool":"now","arguments":{"timezone":"Asia/Tokyo"}}' | toolgate call --batch
  toolgate --config toolgate.json tools --json
  toolgate policy check web scrape '{"url": "https://huggingface.co/datasets/x"}'
  toolgate --role sub-agent policy check code run_python_code
`

func main() {
	if len(os.Args) > 2 && os.Args[1] == "serve-demo" {
		// The embedded default config runs this binary as its demo servers.
		if err := demo.ServeStdio(context.Background(), os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "toolgate serve-demo:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command line's flags.
type options struct {
	config      string
	json, seed  bool
	batch       bool
	agent, role string
	help        bool
}

// run is the whole command, minus the process: testable in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "fetch" {
		return runFetch(ctx, args[1:], stdout, stderr) // flags of its own, no config
	}
	var o options
	fs := flag.NewFlagSet("toolgate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.config, "config", "", "config file")
	fs.BoolVar(&o.json, "json", false, "tools: print JSON")
	fs.BoolVar(&o.seed, "seed", false, "tools --json: print the original ToolManager's shape")
	fs.BoolVar(&o.batch, "batch", false, "call: read JSON Lines requests from stdin")
	fs.StringVar(&o.agent, "agent", "", "the calling agent's name, for policy rules")
	fs.StringVar(&o.role, "role", "", "the calling agent's role, for policy rules")
	fs.BoolVar(&o.help, "help", false, "show help")
	fs.BoolVar(&o.help, "h", false, "show help")
	positional, err := parseInterspersed(fs, args)
	if o.help || len(args) == 0 || (err == nil && len(positional) > 0 && positional[0] == "help") {
		io.WriteString(stdout, usage)
		return exitOK
	}
	if err != nil {
		return usageError(stderr, err.Error())
	}
	if len(positional) == 0 {
		return usageError(stderr, "no command given")
	}
	cfg, err := loadConfig(o.config)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return exitUsage
	}
	if o.agent != "" || o.role != "" {
		ctx = toolgate.WithCaller(ctx, toolgate.Caller{Agent: o.agent, Role: o.role})
	}
	switch cmd, rest := positional[0], positional[1:]; cmd {
	case "tools":
		if len(rest) != 0 {
			return usageError(stderr, "tools takes no arguments")
		}
		return withManager(cfg, stderr, func(m *toolgate.Manager) int { return listTools(ctx, m, stdout, o.json, o.seed) })
	case "call":
		return runCall(ctx, cfg, o, rest, stdin, stdout, stderr)
	case "policy":
		if len(rest) < 3 || len(rest) > 4 || rest[0] != "check" {
			return usageError(stderr, "policy wants check SERVER TOOL [ARGS_JSON | -]")
		}
		checkArgs, err := parseArgs(rest[3:], stdin)
		if err != nil {
			return usageError(stderr, err.Error())
		}
		return withManager(cfg, stderr, func(m *toolgate.Manager) int { return checkPolicy(ctx, m, rest[1], rest[2], checkArgs, stdout) })
	default:
		return usageError(stderr, fmt.Sprintf("unknown command %q", cmd))
	}
}

func runCall(ctx context.Context, cfg toolgate.Config, o options, rest []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if o.batch {
		if len(rest) != 0 {
			return usageError(stderr, "call --batch takes no arguments")
		}
		return withManager(cfg, stderr, func(m *toolgate.Manager) int { return callBatch(ctx, m, stdin, stdout, stderr) })
	}
	if len(rest) < 2 || len(rest) > 3 {
		return usageError(stderr, "call wants SERVER TOOL [ARGS_JSON | -]")
	}
	callArgs, err := parseArgs(rest[2:], stdin)
	if err != nil {
		return usageError(stderr, err.Error())
	}
	return withManager(cfg, stderr, func(m *toolgate.Manager) int { return callOne(ctx, m, rest[0], rest[1], callArgs, stdout) })
}

// checkPolicy prints what the allow/deny lists and policy decide for a
// call, without making it; exit 1 when the call would be refused.
func checkPolicy(ctx context.Context, m *toolgate.Manager, server, tool string, args map[string]any, stdout io.Writer) int {
	d := m.Check(ctx, server, tool, args)
	out := struct {
		Server   string   `json:"server"`
		Tool     string   `json:"tool"`
		Decision string   `json:"decision"`
		Rule     string   `json:"rule,omitempty"`
		Message  string   `json:"message,omitempty"`
		Logged   []string `json:"logged,omitempty"`
	}{server, tool, string(d.Action), d.Rule, d.Message, d.Logged}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
	if d.Action == "deny" {
		return exitError
	}
	return exitOK
}

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

func usageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "toolgate: %s\nRun 'toolgate --help' for usage.\n", msg)
	return exitUsage
}

// loadConfig picks the config: the named file, else ./toolgate.json, else
// the embedded default.
func loadConfig(path string) (toolgate.Config, error) {
	if path != "" {
		return toolgate.LoadConfig(path)
	}
	if _, err := os.Stat("toolgate.json"); err == nil {
		return toolgate.LoadConfig("toolgate.json")
	}
	exe, err := os.Executable()
	if err != nil {
		return toolgate.Config{}, fmt.Errorf("embedded config: %w", err)
	}
	return toolgate.ParseConfigEnv(defaultConfig, func(name string) (string, bool) {
		if name == "TOOLGATE_EXE" {
			return exe, true
		}
		return os.LookupEnv(name)
	})
}

func withManager(cfg toolgate.Config, stderr io.Writer, f func(*toolgate.Manager) int) int {
	var opts []toolgate.Option
	if lv := os.Getenv("TOOLGATE_LOG"); lv != "" {
		opts = append(opts, toolgate.WithStepLogger(stepLogger(stderr, lv)))
	}
	m, err := toolgate.New(cfg, opts...)
	if err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return exitUsage
	}
	defer m.Close()
	return f(m)
}

// stepLogger writes the step log to w as text when TOOLGATE_LOG is set;
// TOOLGATE_LOG=debug includes the debug steps.
func stepLogger(w io.Writer, level string) toolgate.StepLogger {
	lv := slog.LevelInfo
	if level == "debug" {
		lv = slog.LevelDebug
	}
	return toolgate.SlogLogger(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv})))
}

// parseArgs reads ARGS_JSON from the argument or, for "-", stdin.
func parseArgs(rest []string, stdin io.Reader) (map[string]any, error) {
	if len(rest) == 0 {
		return nil, nil
	}
	data := []byte(rest[0])
	if rest[0] == "-" {
		var err error
		if data, err = io.ReadAll(stdin); err != nil {
			return nil, fmt.Errorf("read arguments from stdin: %w", err)
		}
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("ARGS_JSON is not valid JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("ARGS_JSON must be a JSON object, got %s", jsonKind(v))
	}
	return obj, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func listTools(ctx context.Context, m *toolgate.Manager, stdout io.Writer, asJSON, seed bool) int {
	defs, err := m.ToolDefinitions(ctx)
	if err != nil && defs == nil {
		fmt.Fprintf(stdout, "toolgate: %v\n", err)
		return exitError
	}
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if seed {
			_ = enc.Encode(toolgate.SeedDefinitions(defs))
		} else {
			_ = enc.Encode(defs)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	for _, st := range defs {
		if st.Error != "" {
			fmt.Fprintf(tw, "%s\tERROR %s\n", st.Name, st.Error)
			continue
		}
		fmt.Fprintf(tw, "%s\t(%d tools)\n", st.Name, len(st.Tools))
		for _, t := range st.Tools {
			fmt.Fprintf(tw, "  %s\t%s\n", t.Name, firstLine(t.Description))
		}
	}
	tw.Flush()
	return exitOK
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

func callOne(ctx context.Context, m *toolgate.Manager, server, tool string, args map[string]any, stdout io.Writer) int {
	res := m.CallTool(ctx, server, tool, args)
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(res)
	if !res.OK() {
		return exitError
	}
	return exitOK
}

func callBatch(ctx context.Context, m *toolgate.Manager, stdin io.Reader, stdout, stderr io.Writer) int {
	w := bufio.NewWriter(stdout)
	failed, err := toolgate.RunBatch(ctx, m, stdin, w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return exitError
	case failed > 0:
		return exitError
	}
	return exitOK
}
