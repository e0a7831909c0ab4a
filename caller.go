package toolgate

import (
	"context"

	"github.com/toolgate/toolgate/policy"
)

// Caller is who makes a call: an agent's name and its role. Policy rules
// can match on both, so that a sub-agent may be denied what the main agent
// may do.
type Caller = policy.Caller

type callerKey struct{}

// WithCaller returns a context that carries c to [Manager.CallTool] and
// [Manager.ToolDefinitions].
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the Caller carried by ctx, or the zero Caller.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}
