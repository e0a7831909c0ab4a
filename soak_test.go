package toolgate_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/internal/testserver"
	"go.uber.org/goleak"
)

// soakCall is one planned call of the soak test.
type soakCall struct {
	server, tool string
	args         map[string]any
	fault        string // "" for a plain echo
}

// soakFaults are the faults the soak injects, and the code each must get
// when it is not hit by another call's fault on the same server first.
var soakFaults = map[string]toolgate.Code{
	"crash":   toolgate.CodeConnectionLost,
	"garbage": toolgate.CodeConnectionLost,
	"hang":    toolgate.CodeTimeout,
	"fail":    toolgate.CodeToolError,
	"nosuch":  toolgate.CodeUnknownTool,
}

// soakPlan makes n calls across servers, a share rate of them faults.
func soakPlan(n int, servers []string, rate float64) []soakCall {
	rng := rand.New(rand.NewPCG(6, 10000)) // the same plan every run
	kinds := make([]string, 0, len(soakFaults))
	for k := range soakFaults {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	plan := make([]soakCall, n)
	for i := range plan {
		c := soakCall{server: servers[rng.IntN(len(servers))], tool: "echo", args: map[string]any{"text": fmt.Sprintf("call-%d", i)}}
		if rng.Float64() < rate {
			c.fault = kinds[rng.IntN(len(kinds))]
			c.tool, c.args = c.fault, nil
			if c.fault == "fail" {
				c.args = map[string]any{"message": "injected"}
			}
		}
		plan[i] = c
	}
	return plan
}

// TestSoak makes 10,000 calls from 64 concurrent callers across 4 stdio
// servers, 5% of them faults, and checks that every call gets exactly one
// Result of the right kind, then that nothing is left behind.
func TestSoak(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const calls, callers = 10000, 64
	var cfg toolgate.Config
	var names []string
	for i := range 4 {
		sc := stdioServer(fmt.Sprintf("s%d", i), testserver.BehaviourFaults)
		cfg.Servers = append(cfg.Servers, sc)
		names = append(names, sc.Name)
	}
	m, err := toolgate.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	plan := soakPlan(calls, names, 0.05)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	start := time.Now()
	results := make([]toolgate.Result, calls)
	got := make([]atomic.Int32, calls) // Results received per call
	var next atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < calls; i = int(next.Add(1) - 1) {
				results[i] = soakCallOnce(ctx, m, plan[i])
				got[i].Add(1)
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	m.Close()

	counts := checkSoak(t, plan, results, got)
	t.Logf("%d calls from %d callers in %v: %v", calls, callers, took.Round(time.Millisecond), counts)
	if took > 2*time.Minute {
		t.Errorf("soak took %v, want under 2 minutes", took)
	}
	childrenSettle(t, 0)
}

// soakCallOnce makes one planned call. A hang is ended by the caller's
// deadline, so that the server's own call timeout need not be short (a
// call that waits for a reconnect under load would run past a short one).
func soakCallOnce(ctx context.Context, m *toolgate.Manager, c soakCall) toolgate.Result {
	if c.fault == "hang" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
	}
	return m.CallTool(ctx, c.server, c.tool, c.args)
}

// checkSoak checks every call got one Result of the expected kind and
// returns how many ended each way.
func checkSoak(t *testing.T, plan []soakCall, results []toolgate.Result, got []atomic.Int32) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for i, c := range plan {
		if n := got[i].Load(); n != 1 {
			t.Errorf("call %d got %d Results, want exactly 1", i, n)
			continue
		}
		r := results[i]
		outcome := "ok"
		if r.Err != nil {
			outcome = string(r.Err.Code)
		}
		kind := c.fault
		if kind == "" {
			kind = "echo"
		}
		counts[kind+"→"+outcome]++
		if r.Server != c.server || r.Tool != c.tool {
			t.Errorf("call %d to %s:%s answered as %s:%s", i, c.server, c.tool, r.Server, r.Tool)
		}
		switch {
		case c.fault == "" && r.Err == nil:
			if want := c.args["text"]; r.Text != want {
				t.Errorf("call %d: echo of %q answered %q", i, want, r.Text)
			}
		case r.Err != nil && r.Err.Code == toolgate.CodeConnectionLost:
			// Another call's crash or garbage ended the session under this one.
		case c.fault != "" && r.Err != nil && r.Err.Code == soakFaults[c.fault]:
		default:
			t.Errorf("call %d (%s:%s, fault %q): %+v", i, c.server, c.tool, c.fault, r.Err)
		}
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != len(plan) {
		t.Errorf("%d Results for %d calls", total, len(plan))
	}
	if t.Failed() {
		t.Logf("outcomes: %s", fmt.Sprint(counts))
	}
	return counts
}
