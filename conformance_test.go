package toolgate_test

// Runs the MCP conformance suite (@modelcontextprotocol/conformance, pinned
// in scripts/npm, on the pinned Node 22) against internal/conformance/client,
// a conformance client built on toolgate. scripts/test-deps.sh installs the
// suite; without it this test skips (fails under CI=true).

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/toolgate/toolgate/internal/npmtest"
)

var (
	ansiEscape      = regexp.MustCompile("\x1b\\[[0-9;]*m")
	conformanceSums = regexp.MustCompile(`(?m)^Passed: (\d+)/(\d+), (\d+) failed, (\d+) warnings`)
)

func TestConformanceClient(t *testing.T) {
	node := npmtest.Node22(t)
	cli := npmtest.ConformanceEntry(t)

	dir := t.TempDir()
	client := filepath.Join(dir, "toolgate-conformance-client")
	build := exec.Command("go", "build", "-o", client, "./internal/conformance/client")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./internal/conformance/client: %v\n%s", err, out)
	}

	for _, scenario := range []string{
		"initialize",
		"tools_call",
		"sse-retry",
		"elicitation-sep1034-client-defaults",
	} {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, cli, "client",
				"--command", client, "--scenario", scenario, "--timeout", "60000")
			cmd.Dir = t.TempDir() // the suite may write results to its working directory
			cmd.WaitDelay = 5 * time.Second
			raw, err := cmd.CombinedOutput()
			out := ansiEscape.ReplaceAllString(string(raw), "")
			t.Logf("conformance %s:\n%s", scenario, out)
			if err != nil {
				t.Errorf("conformance suite exited with %v", err)
			}
			m := conformanceSums.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no %q summary in the output", "Passed: N/M, F failed, W warnings")
			}
			passed, _ := strconv.Atoi(m[1])
			total, _ := strconv.Atoi(m[2])
			failed, _ := strconv.Atoi(m[3])
			warnings, _ := strconv.Atoi(m[4])
			if failed != 0 || passed != total || total == 0 {
				t.Errorf("scenario %s: %d/%d checks passed, %d failed", scenario, passed, total, failed)
			}
			if warnings != 0 {
				t.Logf("scenario %s: %d warnings", scenario, warnings)
			}
		})
	}
}
