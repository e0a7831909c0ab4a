package toolgate_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate"
)

func TestNormalize(t *testing.T) {
	size := int64(10)
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"nil", nil, ""},
		{"empty", &mcp.CallToolResult{}, ""},
		{"texts joined in order", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}}, "a\nb"},
		{"image last does not crash", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "see"}, &mcp.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)}}},
			"see\n[image image/png 1234 bytes]"},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("xx")}}}, "[audio audio/wav 2 bytes]"},
		{"embedded text and blob", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a://t", Text: "inner"}},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "a://b", MIMEType: "application/pdf", Blob: []byte("123")}}}},
			"inner\n[resource a://b application/pdf 3 bytes]"},
		{"resource link", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///x", Name: "x", Size: &size}}}, "[resource_link x file:///x]"},
		{"resource link without name", &mcp.CallToolResult{Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///x"}}}, "[resource_link file:///x]"},
		{"structured when no text", &mcp.CallToolResult{StructuredContent: map[string]any{"sum": 3}}, `{"sum":3}`},
		{"text wins over structured", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "3"}}, StructuredContent: map[string]any{"sum": 3}}, "3"},
	} {
		if got := toolgate.Normalize(tc.res); got != tc.want {
			t.Errorf("%s: Normalize = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestResultJSON(t *testing.T) {
	ok := toolgate.Result{Server: "s", Tool: "t", Text: ""}
	b, _ := json.Marshal(ok)
	if string(b) != `{"server_name":"s","tool_name":"t","result":""}` {
		t.Errorf("success JSON = %s", b)
	}
	fail := toolgate.Result{Server: "s", Tool: "t", Err: &toolgate.Error{Code: toolgate.CodeTimeout, Message: "timed out after 30s"}}
	b, _ = json.Marshal(fail)
	if string(b) != `{"server_name":"s","tool_name":"t","error":"timed out after 30s","error_code":"timeout"}` {
		t.Errorf("error JSON = %s", b)
	}
	img := toolgate.Result{Server: "s", Tool: "t", Text: "[image image/png 3 bytes]",
		Content: []mcp.Content{&mcp.ImageContent{MIMEType: "image/png", Data: []byte("abc")}}, Truncated: true, Fallback: "fetch"}
	b, _ = json.Marshal(img)
	for _, part := range []string{`"content":[{"type":"image","mimeType":"image/png","data":"YWJj"}]`, `"truncated":true`, `"fallback":"fetch"`} {
		if !strings.Contains(string(b), part) {
			t.Errorf("JSON %s lacks %s", b, part)
		}
	}
	text := toolgate.Result{Text: "x", Content: []mcp.Content{&mcp.TextContent{Text: "x"}}}
	if b, _ = json.Marshal(text); strings.Contains(string(b), "content") {
		t.Errorf("text-only content repeated in JSON: %s", b)
	}
	var back toolgate.Result
	if err := json.Unmarshal([]byte(`{"server_name":"s","tool_name":"t","error":"m","error_code":"blocked","duration_ms":1.5}`), &back); err != nil ||
		back.Err == nil || back.Err.Code != toolgate.CodeBlocked || back.Duration.Microseconds() != 1500 {
		t.Errorf("round trip = %+v, %v", back, err)
	}
}
