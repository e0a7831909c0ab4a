package toolgate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// truncationMarker ends a result cut to the output limit, as in the original.
const truncationMarker = "\n... [Result truncated]"

// limitResult cuts r to maxChars characters of text, on a character
// boundary, and drops what would keep the uncut output alive: text blocks
// past the limit, binary blocks over ten times as many bytes, and
// structured content over the limit. It sets Truncated if anything was cut.
func limitResult(r *Result, maxChars int) {
	if r.Err != nil {
		return
	}
	if cut, ok := cutText(r.Text, maxChars); ok {
		r.Text, r.Truncated = cut+truncationMarker, true
	}
	if r.Structured != nil && len(r.Text) > maxChars/2 {
		// Only a big text can come with a big structured value; measure then.
		if b, err := json.Marshal(r.Structured); err != nil || len(b) > maxChars {
			r.Structured, r.Truncated = nil, true
		}
	}
	budget := maxChars // characters of text blocks kept in Content
	for i, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if cut, ok := cutText(c.Text, budget); ok {
				r.Content[i] = &mcp.TextContent{Text: cut + truncationMarker}
				r.Truncated = true
			}
			budget = max(budget-len(c.Text), 0)
		case *mcp.ImageContent:
			r.Content[i] = capBinary(c, "image", c.MIMEType, len(c.Data), 10*maxChars, &r.Truncated)
		case *mcp.AudioContent:
			r.Content[i] = capBinary(c, "audio", c.MIMEType, len(c.Data), 10*maxChars, &r.Truncated)
		case *mcp.EmbeddedResource:
			if c.Resource != nil {
				n := len(c.Resource.Blob) + len(c.Resource.Text)
				r.Content[i] = capBinary(c, "resource", c.Resource.MIMEType, n, 10*maxChars, &r.Truncated)
			}
		}
	}
}

// cutText returns s cut to at most max characters, on a UTF-8 boundary,
// and whether it cut anything. A cut string is a copy, so that it does not
// keep the whole of s alive.
func cutText(s string, max int) (string, bool) {
	if len(s) <= max { // bytes >= characters: nothing to count
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return strings.Clone(s[:i]), true
		}
		n++
	}
	return s, false
}

// capBinary replaces a block of more than limit bytes by a note.
func capBinary(c mcp.Content, kind, mime string, size, limit int, truncated *bool) mcp.Content {
	if size <= limit {
		return c
	}
	*truncated = true
	return &mcp.TextContent{Text: fmt.Sprintf("[%s %s %d bytes dropped: over the %d-byte limit]", kind, orUnknown(mime), size, limit)}
}
