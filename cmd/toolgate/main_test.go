package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/demo"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// The embedded config runs this (test) binary as its demo servers.
	if len(os.Args) > 2 && os.Args[1] == "serve-demo" {
		if err := demo.ServeStdio(context.Background(), os.Args[2]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func runCLI(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestToolsWithEmbeddedDefault(t *testing.T) {
	t.Chdir(t.TempDir()) // no ./toolgate.json here
	code, out, errOut := runCLI(t, "", "tools")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"text", "calc", "clock", "word_count", "evaluate", "now"} {
		if !strings.Contains(out, want) {
			t.Errorf("tools output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCLI(t, "", "tools", "--json")
	var defs []toolgate.ServerTools
	if err := json.Unmarshal([]byte(out), &defs); err != nil || code != exitOK || len(defs) != 3 || defs[0].Name != "text" {
		t.Fatalf("tools --json: exit %d, %v, %s", code, err, out)
	}
}

func TestCall(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		name     string
		stdin    string
		args     []string
		code     int
		contains string
	}{
		{"evaluate", "", []string{"call", "calc", "evaluate", `{"expression": "6*7"}`}, exitOK, `"result": "42"`},
		{"args from stdin", `{"text": "a b c"}`, []string{"call", "text", "word_count", "-"}, exitOK, `"words": 3`},
		{"flags after", "", []string{"call", "calc", "evaluate", `{"expression": "1"}`, "--config", ""}, exitOK, `"result": "1"`},
		{"unknown server", "", []string{"call", "nope", "x"}, exitError, `"error_code": "unknown_server"`},
		{"unknown tool", "", []string{"call", "calc", "nope"}, exitError, `"error_code": "unknown_tool"`},
		{"tool error", "", []string{"call", "calc", "evaluate", `{"expression": "1/0"}`}, exitError, `"error_code": "tool_error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tc.stdin, tc.args...)
			if code != tc.code || !strings.Contains(out, tc.contains) {
				t.Errorf("exit %d (want %d), stdout %s, stderr %s; want %q", code, tc.code, out, errOut, tc.contains)
			}
		})
	}
}

func TestUsageAndConfigErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {"a": {"command": "x", "url": "http://h/mcp"}}}`), 0o600)
	for _, tc := range []struct {
		name     string
		args     []string
		code     int
		inStderr string
	}{
		{"no args", nil, exitOK, ""},
		{"help", []string{"--help"}, exitOK, ""},
		{"unknown command", []string{"frob"}, exitUsage, `unknown command "frob"`},
		{"unknown flag", []string{"tools", "--frob"}, exitUsage, "flag provided but not defined: -frob"},
		{"call without tool", []string{"call", "calc"}, exitUsage, "call wants SERVER TOOL"},
		{"args not JSON", []string{"call", "calc", "evaluate", "{nope"}, exitUsage, "ARGS_JSON is not valid JSON"},
		{"args not object", []string{"call", "calc", "evaluate", "[1,2]"}, exitUsage, "ARGS_JSON must be a JSON object, got an array"},
		{"bad config", []string{"--config", bad, "tools"}, exitUsage, "mcpServers.a.url: set both command and url"},
		{"missing config", []string{"--config", filepath.Join(dir, "none.json"), "tools"}, exitUsage, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.inStderr) {
				t.Errorf("exit %d (want %d), stderr %q, want %q", code, tc.code, errOut, tc.inStderr)
			}
			if tc.code == exitOK && !strings.Contains(out, "Usage:") {
				t.Errorf("help output lacks usage: %s", out)
			}
		})
	}
}

func TestToolsListsFailingServerAndExitsZero(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	exe, _ := os.Executable()
	cfg := `{"mcpServers": {
	  "calc": {"command": "` + exe + `", "args": ["serve-demo", "calc"]},
	  "broken": {"command": "toolgate-no-such-command"}}}`
	os.WriteFile("toolgate.json", []byte(cfg), 0o600) // picked up without --config
	code, out, _ := runCLI(t, "", "tools", "--json")
	var defs []toolgate.ServerTools
	if err := json.Unmarshal([]byte(out), &defs); err != nil || code != exitOK || len(defs) != 2 {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if defs[0].Name != "calc" || len(defs[0].Tools) == 0 || defs[1].Name != "broken" ||
		!strings.Contains(defs[1].Error, "connect_failed: exec: \"toolgate-no-such-command\"") {
		t.Errorf("defs = %+v", defs)
	}
}

func TestBatch(t *testing.T) {
	t.Chdir(t.TempDir())
	in := strings.Join([]string{
		`{"server": "calc", "tool": "evaluate", "arguments": {"expression": "2+2"}}`,
		`not json`,
		``,
		`{"server": "text", "tool": "hash", "arguments": {"text": "abc"}}`,
		`{"server": "calc", "tool": "evaluate", "arguments": [1]}`,
		`{"tool": "evaluate"}`,
		`{"server": "calc", "tool": "evaluate", "arguments": {"expression": "3*3"}}`,
	}, "\n")
	code, out, errOut := runCLI(t, in, "call", "--batch")
	if code != exitError {
		t.Errorf("exit %d, want %d since some lines failed (stderr %s)", code, exitError, errOut)
	}
	var results []toolgate.Result
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var r toolgate.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		results = append(results, r)
	}
	want := []struct {
		text string
		code toolgate.Code
	}{
		{"4", ""},
		{"", toolgate.CodeInvalidArguments},
		{"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", ""},
		{"", toolgate.CodeInvalidArguments},
		{"", toolgate.CodeInvalidArguments},
		{"9", ""},
	}
	if len(results) != len(want) {
		t.Fatalf("%d results for %d requests:\n%s", len(results), len(want), out)
	}
	for i, w := range want {
		r := results[i]
		got := toolgate.Code("")
		if r.Err != nil {
			got = r.Err.Code
		}
		if got != w.code || (w.text != "" && !strings.HasPrefix(r.Text, w.text)) {
			t.Errorf("result %d = %+v, want text %q code %q", i, r, w.text, w.code)
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	cfg := `{"mcpServers": {"web": {"command": "toolgate-never-started"}},
	  "toolgate": {"policy": {"presets": ["huggingface-datasets"], "rules": [
	    {"action": "deny", "tool": "run_python_code", "role": "sub-agent", "message": "not for sub-agents"}]}}}`
	os.WriteFile("toolgate.json", []byte(cfg), 0o600)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"policy", "check", "web", "scrape", `{"url": "https://huggingface.co/datasets/x"}`}, exitError, `"rule": "preset huggingface-datasets[0]"`},
		{[]string{"policy", "check", "web", "scrape", `{"url": "https://example.com/"}`}, exitOK, `"decision": "allow"`},
		{[]string{"--role", "sub-agent", "policy", "check", "web", "run_python_code"}, exitError, `"message": "not for sub-agents"`},
		{[]string{"policy", "check", "web", "run_python_code", "--agent", "boss", "--role", "main"}, exitOK, `"decision": "allow"`},
	} {
		code, out, errOut := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d (want %d), out %s %s; want %q", tc.args, code, tc.code, out, errOut, tc.want)
		}
	}
	os.WriteFile("toolgate.json", []byte(`{"mcpServers": {}, "toolgate": {"policy": {"rules": [{"action": "deny", "regx": "x"}]}}}`), 0o600)
	if code, _, errOut := runCLI(t, "", "policy", "check", "a", "b"); code != exitUsage ||
		!strings.Contains(errOut, `toolgate.policy.rules[0].regx: unknown key (did you mean "regex"?)`) {
		t.Errorf("bad rule: exit %d, %s", code, errOut)
	}
	os.Remove("toolgate.json")
	if code, _, errOut := runCLI(t, "", "policy", "frob"); code != exitUsage || !strings.Contains(errOut, "policy wants check") {
		t.Errorf("policy frob: exit %d, %s", code, errOut)
	}
}
