package toolgate_test

import (
	"encoding/json"
	"testing"

	"github.com/toolgate/toolgate"
)

func TestSeedDefinitions(t *testing.T) {
	defs := []toolgate.ServerTools{
		{Name: "ok", Tools: []toolgate.Tool{{Name: "t", Description: "d", Schema: map[string]any{"type": "object"}}}},
		{Name: "broken", Tools: []toolgate.Tool{}, Error: "connect_failed: boom"},
	}
	got, _ := json.Marshal(toolgate.SeedDefinitions(defs))
	want := `[{"name":"ok","tools":[{"description":"d","name":"t","schema":{"type":"object"}}]},` +
		`{"name":"broken","tools":[{"error":"Unable to fetch tools: connect_failed: boom"}]}]`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
