package upstream

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	return t.base.RoundTrip(req)
}

func httpClient(headers map[string]string) *http.Client {
	if len(headers) == 0 {
		return &http.Client{}
	}
	return &http.Client{Transport: &headerTransport{base: http.DefaultTransport, headers: headers}}
}

// detachedConnect runs a transport's Connect under life instead of the
// caller's context, while still giving up when the caller's context ends.
// The legacy SSE transport ties its event stream to the Connect context; a
// connect timeout must not end the session that outlives it.
type detachedConnect struct {
	mcp.Transport
	life   context.Context
	cancel context.CancelFunc
}

func (d *detachedConnect) Connect(ctx context.Context) (mcp.Connection, error) {
	type result struct {
		conn mcp.Connection
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		conn, err := d.Transport.Connect(d.life)
		ch <- result{conn, err}
	}()
	select {
	case r := <-ch:
		return r.conn, r.err
	case <-ctx.Done():
		d.cancel()
		if r := <-ch; r.conn != nil {
			r.conn.Close()
		}
		return nil, ctx.Err()
	}
}
