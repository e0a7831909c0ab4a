package toolgate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemas validates call arguments against the tools' input schemas. Each
// schema is compiled once per tool definition: a refreshed tool list brings
// new definitions, and the old compilations are dropped in time.
type schemas struct {
	mu       sync.RWMutex                     // read-locked on every call, write-locked to compile
	compiled map[*mcp.Tool]*jsonschema.Schema // nil value: not checkable
	log      func(level Level, step, msg string, meta map[string]any)
}

func newSchemas(log func(Level, string, string, map[string]any)) *schemas {
	return &schemas{compiled: make(map[*mcp.Tool]*jsonschema.Schema), log: log}
}

// validate returns invalid_arguments listing every failing JSON path, or
// nil when args match (or the schema cannot be used).
func (c *schemas) validate(server string, t *mcp.Tool, args map[string]any) *Error {
	sch := c.schema(server, t)
	if sch == nil {
		return nil
	}
	inst, e := jsonInstance(args)
	if e != nil {
		return e
	}
	verr := sch.Validate(inst)
	if verr == nil {
		return nil
	}
	var problems []string
	if ve, ok := verr.(*jsonschema.ValidationError); ok {
		problems = leafProblems(ve, nil)
	}
	if len(problems) == 0 {
		problems = []string{verr.Error()}
	}
	return &Error{CodeInvalidArguments, fmt.Sprintf("arguments do not match the input schema of %s:%s: %s",
		server, t.Name, strings.Join(problems, "; "))}
}

// jsonInstance returns args as the validator wants them: JSON values. Most
// arguments already are (decoded JSON, numbers of any Go type); others
// (structs, typed slices) make a round trip through JSON, which makes them
// what the server will see.
func jsonInstance(args map[string]any) (any, *Error) {
	if args == nil {
		return map[string]any{}, nil // what is sent for no arguments
	}
	if jsonNative(args, 0) {
		return args, nil
	}
	data, err := json.Marshal(args)
	if err != nil {
		return nil, &Error{CodeInvalidArguments, "arguments cannot be sent as JSON: " + err.Error()}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, &Error{CodeInvalidArguments, err.Error()}
	}
	return inst, nil
}

// jsonNative reports whether v holds only values the validator takes as
// JSON as they are.
func jsonNative(v any, depth int) bool {
	if depth > 64 {
		return false
	}
	switch v := v.(type) {
	case nil, string, bool, json.Number, float64, float32, int, int8, int16, int32, int64,
		uint, uint8, uint16, uint32, uint64:
		return true
	case map[string]any:
		for _, e := range v {
			if !jsonNative(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !jsonNative(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// leafProblems lists the innermost causes, as "at /path: what".
func leafProblems(ve *jsonschema.ValidationError, out []string) []string {
	if len(ve.Causes) == 0 {
		path := "/" + strings.Join(ve.InstanceLocation, "/")
		msg := ve.Error()
		// The error text of a leaf reads "jsonschema validation failed with
		// '...'\n- at '/x': what"; keep the last line's "what".
		if i := strings.LastIndex(msg, "': "); i >= 0 {
			msg = msg[i+3:]
		}
		return append(out, fmt.Sprintf("at %s: %s", path, msg))
	}
	for _, c := range ve.Causes {
		out = leafProblems(c, out)
	}
	return out
}

// schema returns the compiled input schema of t, compiling it on first use.
func (c *schemas) schema(server string, t *mcp.Tool) *jsonschema.Schema {
	c.mu.RLock()
	sch, ok := c.compiled[t]
	c.mu.RUnlock()
	if ok {
		return sch
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if sch, ok := c.compiled[t]; ok {
		return sch
	}
	if len(c.compiled) > 4096 {
		clear(c.compiled) // mostly definitions of tool lists long gone
	}
	sch, err := compileSchema(t.InputSchema)
	if err != nil {
		c.log(LevelWarning, "schema", "input schema not usable, arguments go unchecked: "+err.Error(),
			map[string]any{"server": server, "tool": t.Name})
	}
	c.compiled[t] = sch
	return sch
}

// compileSchema compiles a schema as a server sent it (draft-07 or 2020-12,
// told by its $schema; 2020-12 when it has none). References are resolved
// only within the schema: nothing is fetched.
func compileSchema(raw any) (*jsonschema.Schema, error) {
	if raw == nil {
		return nil, nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	const url = "toolgate:///input-schema.json"
	if err := comp.AddResource(url, doc); err != nil {
		return nil, err
	}
	return comp.Compile(url)
}
