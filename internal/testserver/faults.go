package testserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Behaviours that misbehave on purpose, for fault-injection tests and
// benchmarks, as values of [EnvVar].
const (
	// BehaviourFaults serves normally with the fault tools added:
	// hang, garbage, close_stdout and stderr_flood (see [FaultTools]).
	BehaviourFaults = "faults"
	// BehaviourBadProtocol answers initialize with protocol version
	// [BadProtocolVersion], which no client supports, then waits for stdin
	// to close.
	BehaviourBadProtocol = "bad-protocol-version"
	// BehaviourGarbageFirst writes a line that is not JSON-RPC to stdout
	// when the client's first message arrives, then stops answering.
	BehaviourGarbageFirst = "garbage-first"

	// behaviourDelayPrefix starts a behaviour made by [DelayedStart].
	behaviourDelayPrefix = "delay-start:"
)

// BadProtocolVersion is the protocol version [BehaviourBadProtocol] claims.
const BadProtocolVersion = "1999-01-01"

// FaultTools names the tools that [BehaviourFaults] adds to the usual ones:
//
//   - hang {marker}: never answers; when the request is cancelled it writes
//     "cancelled" to the file marker (if set) and goes on hanging;
//   - garbage: writes a line that is not JSON-RPC to stdout, then answers;
//   - close_stdout: closes stdout and never answers; the process then keeps
//     running after stdin closes and ignores SIGTERM;
//   - stderr_flood {mb}: writes mb MiB to stderr, then answers "flooded".
var FaultTools = []string{"hang", "garbage", "close_stdout", "stderr_flood"}

// DelayedStart returns a behaviour that sleeps for d before serving as
// [BehaviourFaults] does.
func DelayedStart(d time.Duration) string { return behaviourDelayPrefix + d.String() }

// runFault runs the fault behaviours. ok is false for a behaviour that is
// not one of them.
func runFault(ctx context.Context, behaviour string) (code int, ok bool) {
	switch {
	case behaviour == BehaviourFaults:
	case behaviour == BehaviourBadProtocol:
		return answerBadProtocol(os.Stdin, os.Stdout), true
	case behaviour == BehaviourGarbageFirst:
		r := bufio.NewReader(os.Stdin)
		_, _ = r.ReadString('\n')
		fmt.Fprintln(os.Stdout, "garbage: this line is not JSON-RPC")
		_, _ = io.Copy(io.Discard, r)
		return 0, true
	case strings.HasPrefix(behaviour, behaviourDelayPrefix):
		d, err := time.ParseDuration(strings.TrimPrefix(behaviour, behaviourDelayPrefix))
		if err != nil {
			fmt.Fprintf(os.Stderr, "testserver: %s: %v\n", behaviour, err)
			return 2, true
		}
		time.Sleep(d)
	default:
		return 0, false
	}
	if err := serveFaults(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1, true
	}
	return 0, true
}

// serveFaults serves the test tools and the fault tools on stdio.
func serveFaults(ctx context.Context) error {
	srv, stats := newServer(true)
	f := &faults{}
	f.register(srv, stats)
	err := srv.Run(ctx, &mcp.StdioTransport{})
	if f.stubborn.Load() {
		for {
			time.Sleep(time.Hour) // close_stdout was called: the client must kill us
		}
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("testserver: serving stdio: %w", err)
	}
	return nil
}

// faults holds the state of the fault tools.
type faults struct {
	stubborn atomic.Bool // close_stdout was called
}

// hangInput is the input of the hang tool.
type hangInput struct {
	Marker string `json:"marker,omitempty" jsonschema:"a file to write when the call is cancelled"`
}

// floodInput is the input of the stderr_flood tool.
type floodInput struct {
	MB int `json:"mb" jsonschema:"how many MiB to write to standard error"`
}

func (f *faults) register(s *mcp.Server, st *Stats) {
	addTool(s, st, "hang", "Never answers; records its cancellation in marker.", hang)
	addTool(s, st, "garbage", "Writes a line that is not JSON-RPC to stdout.", garbage)
	addTool(s, st, "close_stdout", "Closes stdout and keeps running.", f.closeStdout)
	addTool(s, st, "stderr_flood", "Writes mb MiB to standard error.", stderrFlood)
}

func hang(ctx context.Context, _ *mcp.CallToolRequest, in hangInput) (*mcp.CallToolResult, any, error) {
	<-ctx.Done()
	if in.Marker != "" {
		_ = os.WriteFile(in.Marker, []byte("cancelled"), 0o644)
	}
	select {} // hang forever, cancelled or not
}

func garbage(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	// One write of one short line: a pipe write this small is atomic, so it
	// does not tear a message the SDK writes at the same time.
	_, _ = os.Stdout.Write([]byte("garbage: this line is not JSON-RPC\n"))
	return textResult("wrote garbage"), nil, nil
}

func (f *faults) closeStdout(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	f.stubborn.Store(true)
	signal.Ignore(syscall.SIGTERM)
	_ = os.Stdout.Close()
	select {}
}

func stderrFlood(_ context.Context, _ *mcp.CallToolRequest, in floodInput) (*mcp.CallToolResult, any, error) {
	chunk := []byte(strings.Repeat("flood flood flood flood flood flood flood flood flood flood flood\n", 1024))
	total := int64(in.MB) << 20
	for n := int64(0); n < total; {
		w, err := os.Stderr.Write(chunk[:min(int64(len(chunk)), total-n)])
		if err != nil {
			return nil, nil, fmt.Errorf("stderr_flood: after %d bytes: %w", n, err)
		}
		n += int64(w)
	}
	return textResult(fmt.Sprintf("flooded %d bytes", total)), nil, nil
}

// answerBadProtocol reads JSON-RPC lines from r and answers an initialize
// request on w with an unsupported protocol version, until r ends.
func answerBadProtocol(r io.Reader, w io.Writer) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		if req.Method != "initialize" { // e.g. server/discover: make the client fall back to initialize
			res, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID,
				"error": map[string]any{"code": -32601, "message": "method not found"}})
			if _, err := w.Write(append(res, '\n')); err != nil {
				return 1
			}
			continue
		}
		res, _ := json.Marshal(map[string]any{
			"jsonrpc": "2.0",
			"id":      req.ID,
			"result": map[string]any{
				"protocolVersion": BadProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": ImplementationName, "version": "v0.0.1"},
			},
		})
		if _, err := w.Write(append(res, '\n')); err != nil {
			return 1
		}
	}
	return 0
}

// HTTPFault is a way for [FaultyHandler] to misbehave.
type HTTPFault int32

// The faults of a [FaultyHandler].
const (
	HTTPHealthy     HTTPFault = iota // pass every request on
	HTTPServerError                  // answer 500 Internal Server Error
	HTTPReset                        // reset the TCP connection without answering
	// HTTPForget forgets every session seen so far, as a restarted server
	// does: requests naming one get 404 from then on; new sessions work.
	HTTPForget
)

// FaultyHandler serves the test server over streamable HTTP, failing
// requests as its fault says. It is safe for concurrent use.
type FaultyHandler struct {
	next  http.Handler
	fault atomic.Int32

	mu        sync.Mutex
	seen      map[string]bool // session IDs seen in requests
	forgotten map[string]bool
}

// NewFaultyHandler returns a healthy FaultyHandler and its server's Stats.
func NewFaultyHandler() (*FaultyHandler, *Stats) {
	h, stats := StreamableHandler()
	return &FaultyHandler{next: h, seen: map[string]bool{}, forgotten: map[string]bool{}}, stats
}

// SetFault makes every later request fail as f says.
func (h *FaultyHandler) SetFault(f HTTPFault) {
	if f == HTTPForget {
		h.mu.Lock()
		for id := range h.seen {
			h.forgotten[id] = true
		}
		h.mu.Unlock()
		f = HTTPHealthy
	}
	h.fault.Store(int32(f))
}

// EndSessions ends every session the handler has served, forgotten or not,
// so that none outlives a test.
func (h *FaultyHandler) EndSessions() {
	h.mu.Lock()
	ids := make([]string, 0, len(h.seen))
	for id := range h.seen {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		req, _ := http.NewRequest(http.MethodDelete, "/", nil)
		req.Header.Set("Mcp-Session-Id", id)
		h.next.ServeHTTP(discard{}, req)
	}
}

// ServeHTTP implements http.Handler.
func (h *FaultyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch HTTPFault(h.fault.Load()) {
	case HTTPServerError:
		http.Error(w, "injected fault", http.StatusInternalServerError)
		return
	case HTTPReset:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				if tc, ok := conn.(*net.TCPConn); ok {
					_ = tc.SetLinger(0) // close sends RST, not FIN
				}
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	}
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		h.mu.Lock()
		h.seen[id] = true
		gone := h.forgotten[id]
		h.mu.Unlock()
		if gone {
			http.Error(w, "session not found", http.StatusNotFound)
			return
		}
	}
	h.next.ServeHTTP(w, r)
}

// discard is an http.ResponseWriter that drops what it is given.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
