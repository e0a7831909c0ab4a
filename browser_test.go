package toolgate_test

// Tests against the real Playwright MCP server (@playwright/mcp, pinned in
// scripts/npm) driving Debian's chromium, on pages served on loopback.
// scripts/test-deps.sh installs both; without them these tests skip (fail
// under CI=true). They do not run in parallel with each other, so that the
// process-table checks see only their own browsers.

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/npmtest"
)

// chromiumFlags are what Chromium needs on a machine without a network
// beyond loopback: without them it keeps trying to reach Google's hosts.
const chromiumFlags = `{"browser": {"launchOptions": {"args": [
  "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"]}}}`

// playwrightServer is a config entry that runs the Playwright MCP server
// over stdio with headless chromium, in a working directory of its own
// (where it writes its snapshot and screenshot files).
func playwrightServer(t testing.TB, name string) toolgate.ServerConfig {
	t.Helper()
	node, entry, chromium := playwrightNode(t), npmtest.PlaywrightMCPEntry(t), npmtest.Chromium(t)
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "playwright.json")
	if err := os.WriteFile(cfgFile, []byte(chromiumFlags), 0o644); err != nil {
		t.Fatal(err)
	}
	return toolgate.ServerConfig{
		Name:    name,
		Command: node,
		Args: []string{entry, "--headless", "--no-sandbox", "--isolated",
			"--executable-path", chromium, "--config", cfgFile},
		Cwd:      dir,
		Stateful: true,
		Timeout:  90 * time.Second,
	}
}

// playwrightNode is the system's node when it is v20 or later, else the pinned Node 22.
func playwrightNode(t testing.TB) string {
	t.Helper()
	if tt, ok := t.(*testing.T); ok {
		return everythingNode(tt)
	}
	return npmtest.Node22(t)
}

// site serves the test pages on loopback.
func site(t testing.TB) string {
	t.Helper()
	page := func(title, body string) string {
		return "<!doctype html><html><head><title>" + title + "</title></head><body>" + body + "</body></html>"
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/favicon.ico", http.NotFound)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Home", `<h1>Welcome home</h1><a href="/next">Next page</a>`))
	})
	mux.HandleFunc("/next", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Next", `<h1>You reached the next page</h1>`))
	})
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Search", `<form action="/result"><label>Query <input name="q"></label><button>Go</button></form>`))
	})
	mux.HandleFunc("/result", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, page("Result", "<p>You searched for: "+html.EscapeString(r.FormValue("q"))+"</p>"))
	})
	mux.HandleFunc("/page/{name}", func(w http.ResponseWriter, r *http.Request) {
		n := html.EscapeString(r.PathValue("name"))
		fmt.Fprint(w, page("Page "+n, "<h1>This is page "+n+"</h1>"))
	})
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv.URL
}

func browserCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// call runs a call on tm and fails the test unless it succeeds.
func call(t *testing.T, ctx context.Context, tm toolgate.ToolManager, tool string, args map[string]any) toolgate.Result {
	t.Helper()
	r := tm.CallTool(ctx, "playwright", tool, args)
	if r.Err != nil {
		t.Fatalf("%s(%v): %v", tool, args, r.Err)
	}
	return r
}

var refRE = regexp.MustCompile(`(\w+) "([^"]*)"[^\n]*\[ref=(\w+)\]`)

// ref finds the snapshot reference of the element of role with name.
func ref(t *testing.T, snapshot, role, name string) string {
	t.Helper()
	for _, m := range refRE.FindAllStringSubmatch(snapshot, -1) {
		if m[1] == role && m[2] == name {
			return m[3]
		}
	}
	t.Fatalf("no %s %q in the snapshot:\n%s", role, name, snapshot)
	return ""
}

func wantText(t *testing.T, r toolgate.Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(r.Text, p) {
			t.Fatalf("%s: text lacks %q:\n%s", r.Tool, p, r.Text)
		}
	}
}

// browserProcs lists the live chromium processes and Playwright MCP
// servers on the machine, as "pid name".
func browserProcs() []string {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil || isZombie(stat) {
			continue
		}
		exe, _ := os.Readlink(filepath.Join(d, "exe"))
		cmdline, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		pid := filepath.Base(d)
		switch {
		case strings.Contains(exe, "chromium") || strings.Contains(exe, "chrome"):
			out = append(out, pid+" "+filepath.Base(exe))
		case bytes.Contains(cmdline, []byte("@playwright/mcp")):
			out = append(out, pid+" playwright-mcp")
		}
	}
	return out
}

// noBrowsersLeft fails the test if a browser process or browser server not
// in before is alive.
func noBrowsersLeft(t *testing.T, before []string) {
	t.Helper()
	var left []string
	for _, p := range browserProcs() {
		if !slices.Contains(before, p) {
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		t.Fatalf("left running after close: %v", left)
	}
}

// serverPid finds the pid of the one Playwright MCP server started since before.
func serverPid(t *testing.T, before []string) int {
	t.Helper()
	for _, p := range browserProcs() {
		if strings.HasSuffix(p, " playwright-mcp") && !slices.Contains(before, p) {
			pid, _ := strconv.Atoi(strings.Fields(p)[0])
			return pid
		}
	}
	t.Fatal("no Playwright MCP server is running")
	return 0
}

func TestBrowserDrivesPages(t *testing.T) {
	before := browserProcs()
	base := site(t)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{playwrightServer(t, "playwright")}})
	ctx := browserCtx(t)

	r := call(t, ctx, m, "browser_navigate", map[string]any{"url": base + "/"})
	wantText(t, r, "Page Title: Home")
	snap := call(t, ctx, m, "browser_snapshot", nil)
	wantText(t, snap, "Welcome home")
	link := ref(t, snap.Text, "link", "Next page")
	r = call(t, ctx, m, "browser_click", map[string]any{"element": "Next page link", "target": link})
	wantText(t, r, "Page Title: Next")
	wantText(t, call(t, ctx, m, "browser_snapshot", nil), "You reached the next page")

	call(t, ctx, m, "browser_navigate", map[string]any{"url": base + "/form"})
	box := ref(t, call(t, ctx, m, "browser_snapshot", nil).Text, "textbox", "Query")
	call(t, ctx, m, "browser_type", map[string]any{"element": "Query box", "target": box, "text": "gophers", "submit": true})
	call(t, ctx, m, "browser_wait_for", map[string]any{"text": "You searched for"})
	wantText(t, call(t, ctx, m, "browser_snapshot", nil), "You searched for: gophers", "Page Title: Result")

	shot := call(t, ctx, m, "browser_take_screenshot", map[string]any{"scale": "css"})
	var img *mcp.ImageContent
	for _, c := range shot.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			img = ic
		}
	}
	if img == nil || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG")) {
		t.Fatalf("screenshot content = %#v, want a PNG image block", shot.Content)
	}
	wantText(t, shot, fmt.Sprintf("[image image/png %d bytes]", len(img.Data)))

	call(t, ctx, m, "browser_tabs", map[string]any{"action": "new", "url": base + "/page/two"})
	r = call(t, ctx, m, "browser_tabs", map[string]any{"action": "list"})
	wantText(t, r, "Result", "Page two") // both tabs: the first page is still open
	if r.StateReset {
		t.Errorf("StateReset on a session that was never lost: %+v", r)
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	noBrowsersLeft(t, before)
}

func TestBrowserScopesAreIsolated(t *testing.T) {
	before := browserProcs()
	base := site(t)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{
		playwrightServer(t, "playwright"),
		stdioServer("plain", "serve"), // stateless: shared by the scopes
	}})
	ctx := browserCtx(t)
	var wg sync.WaitGroup
	for _, name := range []string{"alpha", "beta"} {
		wg.Go(func() {
			sc := m.Scope("task-" + name)
			for i := range 3 {
				r := sc.CallTool(ctx, "playwright", "browser_navigate",
					map[string]any{"url": fmt.Sprintf("%s/page/%s-%d", base, name, i)})
				if r.Err != nil {
					t.Errorf("scope %s: navigate: %v", name, r.Err)
					return
				}
				if r := sc.CallTool(ctx, "plain", "echo", map[string]any{"text": name}); r.Err != nil {
					t.Errorf("scope %s: echo: %v", name, r.Err)
				}
			}
			r := sc.CallTool(ctx, "playwright", "browser_tabs", map[string]any{"action": "list"})
			other := map[string]string{"alpha": "beta", "beta": "alpha"}[name]
			if r.Err != nil || !strings.Contains(r.Text, "Page "+name+"-2") || strings.Contains(r.Text, other) {
				t.Errorf("scope %s sees tabs %q (err %v); want only its own pages", name, r.Text, r.Err)
			}
		})
	}
	wg.Wait()
	// The unscoped Manager has a browser of its own too.
	if r := m.CallTool(ctx, "playwright", "browser_tabs", map[string]any{"action": "list"}); r.Err != nil ||
		strings.Contains(r.Text, "alpha") || strings.Contains(r.Text, "beta") {
		t.Errorf("the default scope sees %q (err %v)", r.Text, r.Err)
	}
	servers := 0
	for _, p := range browserProcs() {
		if strings.HasSuffix(p, " playwright-mcp") && !slices.Contains(before, p) {
			servers++
		}
	}
	if servers != 3 {
		t.Errorf("%d Playwright servers run, want 3 (two scopes and the default)", servers)
	}

	// Closing one scope ends its browser; the other goes on.
	alpha := m.Scope("task-alpha")
	alpha.Close()
	if r := alpha.CallTool(ctx, "playwright", "browser_tabs", map[string]any{"action": "list"}); r.Err == nil || r.Err.Code != toolgate.CodeClosed {
		t.Errorf("call on a closed scope = %+v, want code closed", r)
	}
	r := m.Scope("task-beta").CallTool(ctx, "playwright", "browser_tabs", map[string]any{"action": "list"})
	if r.Err != nil || !strings.Contains(r.Text, "beta-2") {
		t.Errorf("scope beta after alpha closed: %q (err %v)", r.Text, r.Err)
	}
	m.Close()
	noBrowsersLeft(t, before)
}

func TestBrowserServerKilledMidCall(t *testing.T) {
	before := browserProcs()
	base := site(t)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{playwrightServer(t, "playwright")}})
	ctx := browserCtx(t)
	sc := m.Scope("crash")
	call(t, ctx, sc, "browser_navigate", map[string]any{"url": base + "/page/before"})

	pid := serverPid(t, before)
	done := make(chan toolgate.Result)
	go func() {
		done <- sc.CallTool(ctx, "playwright", "browser_wait_for", map[string]any{"time": 5})
	}()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-done, toolgate.CodeConnectionLost, "")

	r := call(t, ctx, sc, "browser_tabs", map[string]any{"action": "list"})
	if !r.StateReset || !strings.HasPrefix(r.Text, toolgate.StateResetNotice) || strings.Contains(r.Text, "before") {
		t.Fatalf("first call after the crash = %+v; want StateReset and the notice, and no old page", r)
	}
	if r := call(t, ctx, sc, "browser_navigate", map[string]any{"url": base + "/page/after"}); r.StateReset {
		t.Errorf("the second call after the crash says StateReset again")
	}
	m.Close()
	noBrowsersLeft(t, before)
}

func TestBrowserKilledMidCall(t *testing.T) {
	before := browserProcs()
	base := site(t)
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{playwrightServer(t, "playwright")}})
	ctx := browserCtx(t)
	call(t, ctx, m, "browser_navigate", map[string]any{"url": base + "/page/before"})

	browser := 0
	for _, p := range browserProcs() {
		f := strings.Fields(p)
		pid, _ := strconv.Atoi(f[0])
		if f[1] == "chromium" && !slices.Contains(before, p) && pgid(pid) == pid {
			browser = pid // the browser's main process leads its group
		}
	}
	if browser == 0 {
		t.Fatalf("no browser process found among %v", browserProcs())
	}
	done := make(chan toolgate.Result)
	go func() {
		done <- m.CallTool(ctx, "playwright", "browser_wait_for", map[string]any{"time": 5})
	}()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(browser, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wantCode(t, <-done, toolgate.CodeConnectionLost, "browser")
	r := call(t, ctx, m, "browser_snapshot", nil)
	if !r.StateReset || !strings.HasPrefix(r.Text, toolgate.StateResetNotice) {
		t.Fatalf("first call after the browser died = %+v; want StateReset and the notice", r)
	}
	m.Close()
	noBrowsersLeft(t, before)
}

func pgid(pid int) int {
	g, _ := syscall.Getpgid(pid)
	return g
}

func TestBrowserConnectFailingHalfWayLeavesNothing(t *testing.T) {
	before := browserProcs()
	base := site(t)
	pw := playwrightServer(t, "playwright")
	flag := filepath.Join(t.TempDir(), "started")
	// The first start launches a browser in a session of its own, as a
	// browser server does, and dies before answering initialize; later
	// starts run the real server.
	script := `if [ -e "$0" ]; then exec "$@"; fi; touch "$0"
setsid "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$0.profile" about:blank >/dev/null 2>&1 &
sleep 1; echo "dying half-way through the start" >&2; exit 3`
	pw.Args = append([]string{"-c", script, flag, pw.Command}, pw.Args...)
	pw.Command = "/bin/sh"
	pw.Env = map[string]string{"CHROMIUM": npmtest.Chromium(t)}
	m := newManager(t, toolgate.Config{Servers: []toolgate.ServerConfig{pw}})
	ctx := browserCtx(t)

	wantCode(t, m.CallTool(ctx, "playwright", "browser_navigate", map[string]any{"url": base + "/"}),
		toolgate.CodeConnectFailed, "dying half-way")
	noBrowsersLeft(t, before)
	r := call(t, ctx, m, "browser_navigate", map[string]any{"url": base + "/"})
	wantText(t, r, "Page Title: Home")
	if r.StateReset {
		t.Errorf("StateReset after a failed first connect: nothing was lost")
	}
	m.Close()
	noBrowsersLeft(t, before)
}

func TestBrowserIdleScopeIsReleased(t *testing.T) {
	before := browserProcs()
	base := site(t)
	m := newManager(t, toolgate.Config{
		Servers:          []toolgate.ServerConfig{playwrightServer(t, "playwright")},
		ScopeIdleTimeout: time.Second,
	})
	ctx := browserCtx(t)
	sc := m.Scope("idle")
	call(t, ctx, sc, "browser_navigate", map[string]any{"url": base + "/page/kept"})
	waitFor(t, "the idle browser to be released", func() bool {
		for _, p := range browserProcs() {
			if !slices.Contains(before, p) {
				return false
			}
		}
		return true
	})
	r := call(t, ctx, sc, "browser_tabs", map[string]any{"action": "list"})
	if !r.StateReset || !strings.HasPrefix(r.Text, toolgate.StateResetNotice) || strings.Contains(r.Text, "kept") {
		t.Errorf("first call after the idle release = %+v, want the notice and no old page", r)
	}
	m.Close()
	noBrowsersLeft(t, before)
}
