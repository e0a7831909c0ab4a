package toolgate

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Code is a stable, machine-readable error code carried by a failed [Result].
// Codes are only ever added, never renamed.
type Code string

// The error codes a [Result] can carry.
const (
	CodeUnknownServer    Code = "unknown_server"    // no server of that name is configured
	CodeUnknownTool      Code = "unknown_tool"      // the server does not offer that tool
	CodeBlocked          Code = "blocked"           // allow/deny lists or policy refused the call
	CodeInvalidArguments Code = "invalid_arguments" // the arguments are not acceptable
	CodeTimeout          Code = "timeout"           // the call or connect ran past its deadline
	CodeCanceled         Code = "canceled"          // the caller's context was canceled
	CodeConnectFailed    Code = "connect_failed"    // the server could not be started or reached
	CodeConnectionLost   Code = "connection_lost"   // the session died while the call was in flight
	CodeToolError        Code = "tool_error"        // the server answered with isError
	CodeProtocolError    Code = "protocol_error"    // the server answered with a JSON-RPC error or garbage
	CodeFetchFailed      Code = "fetch_failed"      // the fallback fetch failed
	CodeClosed           Code = "closed"            // the Manager was closed
)

// known reports whether c is one of the codes above.
func (c Code) known() bool {
	switch c {
	case CodeUnknownServer, CodeUnknownTool, CodeBlocked, CodeInvalidArguments, CodeTimeout, CodeCanceled,
		CodeConnectFailed, CodeConnectionLost, CodeToolError, CodeProtocolError, CodeFetchFailed, CodeClosed:
		return true
	}
	return false
}

// Error is what went wrong with a tool call: a stable [Code] and a message a
// person can act on.
type Error struct {
	Code    Code
	Message string
}

// Error implements the error interface as "code: message".
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Result is the one answer to every tool call. Exactly one of Text (on
// success) or Err (on failure) is meaningful. Its JSON form is the contract
// shared by the CLI and the gateway:
//
//	{"server_name": "s", "tool_name": "t", "result": "text ..."}
//	{"server_name": "s", "tool_name": "t", "error": "timed out after 30s", "error_code": "timeout"}
type Result struct {
	Server string // the server that was asked
	Tool   string // the tool that was asked for
	Text   string // the normalized text of the result; see [Normalize]
	Err    *Error // nil on success

	// Content holds the server's content blocks, whole (images included).
	// Its JSON form is sent only when some block is not text.
	Content []mcp.Content
	// Structured is the server's structuredContent, if any.
	Structured any
	// Truncated reports that Text was cut to an output limit.
	Truncated bool
	// Fallback names the fallback that produced the result, e.g. "fetch".
	Fallback string
	// FallbackFrom is the call's own error, when a fallback answered instead.
	FallbackFrom *Error
	// StateReset reports that the call ran on a new session of a stateful
	// server, one that replaced a lost or released session: earlier state
	// (pages, tabs, logins) is gone. Text (or the error message) then
	// begins with [StateResetNotice].
	StateReset bool
	// Duration is how long the call took, connect included.
	Duration time.Duration
}

// OK reports whether the call succeeded.
func (r Result) OK() bool { return r.Err == nil }

type resultJSON struct {
	Server     string        `json:"server_name"`
	Tool       string        `json:"tool_name"`
	Result     *string       `json:"result,omitempty"`
	Error      string        `json:"error,omitempty"`
	ErrorCode  Code          `json:"error_code,omitempty"`
	Content    []mcp.Content `json:"content,omitempty"`
	Structured any           `json:"structured,omitempty"`
	Truncated  bool          `json:"truncated,omitempty"`
	Fallback   string        `json:"fallback,omitempty"`
	// The call's own error, when a fallback answered instead.
	OriginalError     string   `json:"original_error,omitempty"`
	OriginalErrorCode Code     `json:"original_error_code,omitempty"`
	StateReset        bool     `json:"state_reset,omitempty"`
	DurationMS        *float64 `json:"duration_ms,omitempty"`
}

// MarshalJSON encodes the Result in the contract shape: "result" on success,
// "error" and "error_code" on failure, optional fields only when set.
func (r Result) MarshalJSON() ([]byte, error) {
	w := resultJSON{
		Server:     r.Server,
		Tool:       r.Tool,
		Structured: r.Structured,
		Truncated:  r.Truncated,
		Fallback:   r.Fallback,
		StateReset: r.StateReset,
	}
	if r.FallbackFrom != nil {
		w.OriginalError, w.OriginalErrorCode = r.FallbackFrom.Message, r.FallbackFrom.Code
	}
	if r.Err != nil {
		w.Error, w.ErrorCode = r.Err.Message, r.Err.Code
	} else {
		text := r.Text
		w.Result = &text
	}
	// Text blocks are all in "result" already; send content only when it
	// holds more than text.
	for _, c := range r.Content {
		if _, isText := c.(*mcp.TextContent); !isText {
			w.Content = r.Content
			break
		}
	}
	if r.Duration > 0 {
		ms := float64(r.Duration.Microseconds()) / 1000
		w.DurationMS = &ms
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes the contract shape. Content blocks are not decoded
// back into [mcp.Content] values; use the JSON directly if you need them.
func (r *Result) UnmarshalJSON(data []byte) error {
	var w struct {
		resultJSON
		Content json.RawMessage `json:"content,omitempty"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*r = Result{
		Server:     w.Server,
		Tool:       w.Tool,
		Structured: w.Structured,
		Truncated:  w.Truncated,
		Fallback:   w.Fallback,
		StateReset: w.StateReset,
	}
	if w.Result != nil {
		r.Text = *w.Result
	}
	if w.ErrorCode != "" || w.Error != "" {
		r.Err = &Error{Code: w.ErrorCode, Message: w.Error}
	}
	if w.OriginalErrorCode != "" || w.OriginalError != "" {
		r.FallbackFrom = &Error{Code: w.OriginalErrorCode, Message: w.OriginalError}
	}
	if w.DurationMS != nil {
		r.Duration = time.Duration(*w.DurationMS * float64(time.Millisecond))
	}
	return nil
}

// errorResult builds a failed Result.
func errorResult(server, tool string, code Code, msg string) Result {
	return Result{Server: server, Tool: tool, Err: &Error{Code: code, Message: msg}}
}
