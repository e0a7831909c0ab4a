// Package npmtest finds the npm packages that scripts/test-deps.sh installs
// into .tools/npm, for tests that run real MCP servers and the conformance
// suite. When a package is missing, a test is skipped, except under CI
// (CI=true), where it fails, so that CI never passes by skipping.
package npmtest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// EnvDir overrides where node_modules is looked for.
const EnvDir = "TOOLGATE_NPM_DIR"

// SetupCommand is the command that installs what this package finds.
const SetupCommand = "scripts/test-deps.sh"

// missing skips the test, or fails it under CI.
func missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := "npmtest: " + strings.TrimSpace(fmt.Sprintf(format, args...)) +
		"; run " + SetupCommand + " from the repository root to install the test dependencies"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// Dir returns the absolute path of .tools/npm/node_modules in the module
// root (the nearest directory above the working directory holding go.mod),
// or of $TOOLGATE_NPM_DIR if that is set.
func Dir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv(EnvDir); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			t.Fatalf("npmtest: %s=%q: %v", EnvDir, d, err)
		}
		if !isDir(abs) {
			missing(t, "%s=%q is not a directory", EnvDir, d)
		}
		return abs
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("npmtest: %v", err)
	}
	d := filepath.Join(root, ".tools", "npm", "node_modules")
	if !isDir(d) {
		missing(t, "%s does not exist", d)
	}
	return d
}

// Node22 returns the path of the Node 22 binary from the npm package node.
func Node22(t testing.TB) string {
	t.Helper()
	p := filepath.Join(Dir(t), ".bin", "node")
	out, err := exec.Command(p, "--version").Output()
	if err != nil {
		missing(t, "Node 22 at %s does not run: %v", p, err)
	}
	if v := strings.TrimSpace(string(out)); !strings.HasPrefix(v, "v22.") {
		missing(t, "%s is Node %s, want v22", p, v)
	}
	return p
}

// EverythingEntry returns the path of @modelcontextprotocol/server-everything's dist/index.js.
func EverythingEntry(t testing.TB) string {
	t.Helper()
	return file(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// ConformanceEntry returns the path of @modelcontextprotocol/conformance's CLI (dist/index.js).
func ConformanceEntry(t testing.TB) string {
	t.Helper()
	return file(t, "@modelcontextprotocol", "conformance", "dist", "index.js")
}

// PlaywrightMCPEntry returns the path of @playwright/mcp's cli.js, the
// Playwright MCP server's entry point.
func PlaywrightMCPEntry(t testing.TB) string {
	t.Helper()
	return file(t, "@playwright", "mcp", "cli.js")
}

// ChromiumPath is where Debian's chromium package puts the browser.
const ChromiumPath = "/usr/bin/chromium"

// Chromium returns the path of Debian's chromium, which the Playwright MCP
// server drives (Playwright's own browser download does not work here).
func Chromium(t testing.TB) string {
	t.Helper()
	fi, err := os.Stat(ChromiumPath)
	if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
		missing(t, "%s is missing (apt-get install -y chromium)", ChromiumPath)
	}
	return ChromiumPath
}

func file(t testing.TB, elem ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{Dir(t)}, elem...)...)
	if fi, err := os.Stat(p); err != nil || fi.IsDir() {
		missing(t, "%s is missing", p)
	}
	return p
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("npmtest: free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fi, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && !fi.IsDir() {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found above the working directory")
		}
		dir = parent
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
