package toolgatetest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/toolgate/toolgate"
	"github.com/toolgate/toolgate/toolgatetest"
)

func TestFake(t *testing.T) {
	var f toolgatetest.Fake
	f.AddTool("search", toolgate.Tool{Name: "google_search"}, func(_ context.Context, args map[string]any) (string, error) {
		return fmt.Sprint("results for ", args["q"]), nil
	})
	f.AddTool("search", toolgate.Tool{Name: "broken"}, func(context.Context, map[string]any) (string, error) {
		return "", errors.New("boom")
	})
	f.FailServer("down", "no route")
	ctx := context.Background()

	defs, err := f.ToolDefinitions(ctx)
	if err != nil || len(defs) != 2 || defs[0].Name != "search" || len(defs[0].Tools) != 2 || !strings.Contains(defs[1].Error, "no route") {
		t.Fatalf("ToolDefinitions = %+v, %v", defs, err)
	}
	for _, tc := range []struct {
		server, tool string
		code         toolgate.Code
	}{
		{"search", "google_search", ""},
		{"search", "broken", toolgate.CodeToolError},
		{"search", "nope", toolgate.CodeUnknownTool},
		{"nope", "x", toolgate.CodeUnknownServer},
		{"down", "x", toolgate.CodeConnectFailed},
	} {
		res := f.CallTool(ctx, tc.server, tc.tool, map[string]any{"q": "go"})
		if got := codeOf(res); got != tc.code || res.Server != tc.server || res.Tool != tc.tool {
			t.Errorf("CallTool(%s, %s) = %+v, want code %q", tc.server, tc.tool, res, tc.code)
		}
	}
	if calls := f.Calls(); len(calls) != 5 || calls[0].Result.Text != "results for go" {
		t.Errorf("Calls = %+v", calls)
	}
}

func codeOf(r toolgate.Result) toolgate.Code {
	if r.Err == nil {
		return ""
	}
	return r.Err.Code
}

// An agent's unit test uses the fake in place of a real Manager.
func ExampleFake() {
	var tools toolgatetest.Fake
	tools.AddTool("calc", toolgate.Tool{Name: "add"}, func(_ context.Context, args map[string]any) (string, error) {
		return fmt.Sprint(args["a"].(float64) + args["b"].(float64)), nil
	})
	var tm toolgate.ToolManager = &tools
	res := tm.CallTool(context.Background(), "calc", "add", map[string]any{"a": 2.0, "b": 3.0})
	fmt.Println(res.Text, res.OK())
	// Output: 5 true
}
