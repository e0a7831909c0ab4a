package toolgate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// BatchRequest is one line of a batch: a call to run.
type BatchRequest struct {
	Server    string         `json:"server"`
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments"`
}

// maxBatchLine bounds one request line.
const maxBatchLine = 64 << 20

// RunBatch reads JSON Lines [BatchRequest]s from r, runs each on tm in
// order, and writes one Result per line to w, so that scripts and agents
// not written in Go can use one set of sessions for many calls. A line that
// is not a valid request gets a Result with code invalid_arguments and the
// batch goes on; blank lines are skipped. It returns the number of failed
// calls, and an error only if reading or writing fails.
func RunBatch(ctx context.Context, tm ToolManager, r io.Reader, w io.Writer) (failed int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxBatchLine)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		res := runBatchLine(ctx, tm, line, text)
		if !res.OK() {
			failed++
		}
		if err := enc.Encode(res); err != nil {
			return failed, fmt.Errorf("write result of line %d: %w", line, err)
		}
		if f, ok := w.(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil {
				return failed, fmt.Errorf("write result of line %d: %w", line, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return failed, fmt.Errorf("read batch: %w", err)
	}
	return failed, nil
}

func runBatchLine(ctx context.Context, tm ToolManager, line int, text []byte) Result {
	var req BatchRequest
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		// Recover what names we can, so the caller can match the answer.
		var names struct{ Server, Tool string }
		_ = json.Unmarshal(text, &names)
		return errorResult(names.Server, names.Tool, CodeInvalidArguments,
			fmt.Sprintf("line %d: not a valid request (want {\"server\": ..., \"tool\": ..., \"arguments\": {...}}): %v", line, err))
	}
	if req.Server == "" || req.Tool == "" {
		return errorResult(req.Server, req.Tool, CodeInvalidArguments,
			fmt.Sprintf("line %d: \"server\" and \"tool\" are required", line))
	}
	return tm.CallTool(ctx, req.Server, req.Tool, req.Arguments)
}
