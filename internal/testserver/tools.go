package testserver

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tools holds the state shared by the test server's tool handlers.
type tools struct {
	server      *mcp.Server
	stats       *Stats
	png         []byte
	exitOnCrash bool
}

// echoInput is the input of the echo tool and of tools added by add_tool.
type echoInput struct {
	Text string `json:"text" jsonschema:"the text to echo back"`
}

// slowInput is the input of the slow tool.
type slowInput struct {
	Ms int `json:"ms" jsonschema:"how many milliseconds to wait"`
}

// failInput is the input of the fail tool.
type failInput struct {
	Message string `json:"message" jsonschema:"the error message to return"`
}

// sumInput is the input of the structured tool.
type sumInput struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// sumOutput is the structured output of the structured tool.
type sumOutput struct {
	Sum int `json:"sum" jsonschema:"the sum a+b"`
}

// nameInput is the input of the add_tool and remove_tool tools.
type nameInput struct {
	Name string `json:"name" jsonschema:"the name of the tool to add or remove"`
}

// stderrInput is the input of the stderr tool.
type stderrInput struct {
	Text string `json:"text" jsonschema:"the text to write to standard error"`
}

// bigInput is the input of the big tool.
type bigInput struct {
	Chars int `json:"chars" jsonschema:"the number of characters to return"`
}

// empty is the input of tools that take no arguments.
type empty struct{}

func (t *tools) register() {
	s, st := t.server, t.stats
	addTool(s, st, "echo", "Returns its text argument unchanged.", echo)
	addTool(s, st, "slow", "Waits ms milliseconds, or until cancelled.", slow(st))
	addTool(s, st, "fail", "Returns a tool error with the given message.", fail)
	addTool(s, st, "image", "Returns a tiny PNG image and a text block.", t.image)
	addTool(s, st, "structured", "Returns the sum of a and b as structured output.", structured)
	addTool(s, st, "mixed", "Returns text, image, embedded resource and resource link content.", t.mixed)
	addTool(s, st, "add_tool", "Adds an echo-like tool with the given name.", t.addTool)
	addTool(s, st, "remove_tool", "Removes the tool with the given name.", t.removeTool)
	addTool(s, st, "crash", "Exits the server process abruptly (stdio only).", t.crash)
	addTool(s, st, "stderr", "Writes text to the server's standard error.", writeStderr)
	addTool(s, st, "big", "Returns a text block of exactly chars 'x' characters.", big)
}

func echo(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
	return textResult(in.Text), nil, nil
}

func slow(stats *Stats) mcp.ToolHandlerFor[slowInput, any] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in slowInput) (*mcp.CallToolResult, any, error) {
		timer := time.NewTimer(time.Duration(in.Ms) * time.Millisecond)
		defer timer.Stop()
		select {
		case <-timer.C:
			return textResult(fmt.Sprintf("slept %dms", in.Ms)), nil, nil
		case <-ctx.Done():
			stats.recordCancel()
			return nil, nil, fmt.Errorf("slow: %w", ctx.Err())
		}
	}
}

func fail(_ context.Context, _ *mcp.CallToolRequest, in failInput) (*mcp.CallToolResult, any, error) {
	return errorResult(in.Message), nil, nil
}

func (t *tools) image(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.ImageContent{Data: t.png, MIMEType: "image/png"},
		&mcp.TextContent{Text: "an image"},
	}}, nil, nil
}

func structured(_ context.Context, _ *mcp.CallToolRequest, in sumInput) (*mcp.CallToolResult, sumOutput, error) {
	return nil, sumOutput{Sum: in.A + in.B}, nil
}

func (t *tools) mixed(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "first"},
		&mcp.ImageContent{Data: t.png, MIMEType: "image/png"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI:      "test://doc",
			MIMEType: "text/plain",
			Text:     "embedded text",
		}},
		&mcp.ResourceLink{URI: "test://link", Name: "link"},
		&mcp.TextContent{Text: "last"},
	}}, nil, nil
}

func (t *tools) addTool(_ context.Context, _ *mcp.CallToolRequest, in nameInput) (*mcp.CallToolResult, any, error) {
	if in.Name == "" {
		return errorResult("add_tool: name must not be empty"), nil, nil
	}
	addTool(t.server, t.stats, in.Name, "Returns its text argument unchanged (added at runtime).", echo)
	return textResult("added " + in.Name), nil, nil
}

func (t *tools) removeTool(_ context.Context, _ *mcp.CallToolRequest, in nameInput) (*mcp.CallToolResult, any, error) {
	t.server.RemoveTools(in.Name)
	return textResult("removed " + in.Name), nil, nil
}

func (t *tools) crash(context.Context, *mcp.CallToolRequest, empty) (*mcp.CallToolResult, any, error) {
	if !t.exitOnCrash {
		return errorResult("crash only works over stdio"), nil, nil
	}
	fmt.Fprintln(os.Stderr, "testserver: crashing")
	os.Exit(2)
	return nil, nil, nil // unreachable
}

func writeStderr(_ context.Context, _ *mcp.CallToolRequest, in stderrInput) (*mcp.CallToolResult, any, error) {
	if _, err := fmt.Fprintln(os.Stderr, in.Text); err != nil {
		return nil, nil, fmt.Errorf("stderr: writing: %w", err)
	}
	return textResult("ok"), nil, nil
}

func big(_ context.Context, _ *mcp.CallToolRequest, in bigInput) (*mcp.CallToolResult, any, error) {
	if in.Chars < 0 {
		return errorResult(fmt.Sprintf("big: chars must not be negative, got %d", in.Chars)), nil, nil
	}
	return textResult(strings.Repeat("x", in.Chars)), nil, nil
}
