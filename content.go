package toolgate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Normalize turns a server's CallToolResult into the text an agent reads,
// by the one rule every server and transport shares:
//
//   - text blocks are joined in order with a newline;
//   - embedded text resources are included as text; binary ones are summarized;
//   - image and audio blocks are summarized as "[image image/png 1234 bytes]"
//     (and kept whole in [Result.Content]);
//   - resource links are listed as "[resource_link NAME URI]";
//   - structuredContent, when there is no text block, is used as JSON text.
//
// It never fails: a block of an unknown kind is summarized by its type.
func Normalize(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	parts := make([]string, 0, len(res.Content))
	hasText := false
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
			hasText = true
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s %d bytes]", orUnknown(c.MIMEType), len(c.Data)))
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				if r.Blob == nil {
					parts = append(parts, r.Text)
					hasText = true
				} else {
					parts = append(parts, fmt.Sprintf("[resource %s %s %d bytes]", r.URI, orUnknown(r.MIMEType), len(r.Blob)))
				}
			}
		case *mcp.ResourceLink:
			parts = append(parts, "[resource_link "+strings.TrimSpace(c.Name+" "+c.URI)+"]")
		case nil:
		default:
			parts = append(parts, fmt.Sprintf("[%T content]", c))
		}
	}
	if !hasText && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append([]string{string(b)}, parts...)
		}
	}
	return strings.Join(parts, "\n")
}

func orUnknown(mime string) string {
	if mime == "" {
		return "application/octet-stream"
	}
	return mime
}

// resultFrom builds the Result for a server's answer: tool_error when the
// server set isError, success otherwise.
func resultFrom(server, tool string, res *mcp.CallToolResult) Result {
	r := Result{
		Server:     server,
		Tool:       tool,
		Text:       Normalize(res),
		Content:    res.Content,
		Structured: res.StructuredContent,
	}
	if res.IsError {
		msg := r.Text
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		r.Text = ""
		r.Err = &Error{Code: CodeToolError, Message: msg}
	}
	return r
}
