// Command testserver runs toolgate's Go MCP test server by hand: over stdio
// (the default), or over streamable HTTP or legacy SSE on a loopback address.
//
//	go run ./internal/testserver/cmd/testserver -http 127.0.0.1:8931
//	go run ./internal/testserver/cmd/testserver -sse 127.0.0.1:8932
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"os/signal"

	"github.com/toolgate/toolgate/internal/testserver"
)

func main() {
	httpAddr := flag.String("http", "", "serve streamable HTTP on this address (path /)")
	sseAddr := flag.String("sse", "", "serve legacy SSE on this address (path /)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var h http.Handler
	addr := *httpAddr
	switch {
	case *httpAddr != "":
		h, _ = testserver.StreamableHandler()
	case *sseAddr != "":
		h, _ = testserver.SSEHandler()
		addr = *sseAddr
	default:
		if err := testserver.ServeStdio(ctx); err != nil {
			log.Fatal(err)
		}
		return
	}
	srv := &http.Server{Addr: addr, Handler: h}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	fmt.Fprintf(os.Stderr, "testserver: serving on http://%s/\n", addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Fatal(err)
	}
}
