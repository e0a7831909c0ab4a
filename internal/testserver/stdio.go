package testserver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EnvVar is the environment variable that makes a test binary act as a stdio
// test server. Its value names the behaviour; see [MainIfRequested].
const EnvVar = "TOOLGATE_TESTSERVER"

// Behaviours of the stdio test server, as values of [EnvVar].
const (
	// BehaviourServe serves normally.
	BehaviourServe = "serve"
	// BehaviourExitDuringInit reads the first message, writes
	// "testserver: exiting during initialize" to stderr and exits with
	// status 3, so the client's initialization fails.
	BehaviourExitDuringInit = "exit-during-init"
	// BehaviourIgnoreStdinClose serves normally but ignores SIGTERM and
	// does not exit when stdin closes; the client must kill it.
	BehaviourIgnoreStdinClose = "ignore-stdin-close"
	// BehaviourSlowStart sleeps for two seconds before serving.
	BehaviourSlowStart = "slow-start"
	// BehaviourStderrNoise writes 100 lines "noise line N" to stderr, then
	// serves normally.
	BehaviourStderrNoise = "stderr-noise"
)

// ServeStdio runs a new test server on os.Stdin/os.Stdout until the client
// disconnects or ctx ends. Its crash tool exits the process.
func ServeStdio(ctx context.Context) error {
	srv, _ := newServer(true)
	if err := srv.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("testserver: serving stdio: %w", err)
	}
	return nil
}

// MainIfRequested is meant to be called first thing from TestMain. If
// os.Getenv(EnvVar) is non-empty it runs the stdio test server with the
// behaviour named there and calls os.Exit; otherwise it returns.
func MainIfRequested() {
	behaviour := os.Getenv(EnvVar)
	if behaviour == "" {
		return
	}
	os.Exit(runBehaviour(context.Background(), behaviour))
}

// Command returns an exec-able command line that starts the running test
// binary as a stdio test server with the given behaviour: the path of the
// binary, the arguments (-test.run=^$, so that no tests run in the child) and
// the extra environment entries (EnvVar=behaviour).
//
// The command is the absolute path of the running executable as reported by
// os.Executable, falling back to os.Args[0].
func Command(behaviour string) (command string, args []string, env map[string]string) {
	command, err := os.Executable()
	if err != nil {
		command = os.Args[0]
	}
	return command, []string{"-test.run=^$"}, map[string]string{EnvVar: behaviour, "GORACE": "atexit_sleep_ms=0"}
}

// runBehaviour runs the stdio server with the named behaviour and returns
// the process exit status.
func runBehaviour(ctx context.Context, behaviour string) int {
	switch behaviour {
	case BehaviourServe:
	case BehaviourExitDuringInit:
		// Wait for the client's first message so that it is certainly
		// mid-handshake, then die.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Fprintln(os.Stderr, "testserver: exiting during initialize")
		return 3
	case BehaviourIgnoreStdinClose:
		signal.Ignore(syscall.SIGTERM)
	case BehaviourSlowStart:
		time.Sleep(2 * time.Second)
	case BehaviourStderrNoise:
		for i := 1; i <= 100; i++ {
			fmt.Fprintf(os.Stderr, "noise line %d\n", i)
		}
	default:
		if code, ok := runFault(ctx, behaviour); ok { // faults.go
			return code
		}
		fmt.Fprintf(os.Stderr, "testserver: unknown behaviour %q\n", behaviour)
		return 2
	}
	err := ServeStdio(ctx)
	if behaviour == BehaviourIgnoreStdinClose {
		for {
			time.Sleep(time.Hour) // the client must kill us
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
