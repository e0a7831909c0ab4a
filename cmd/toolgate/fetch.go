package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/toolgate/toolgate/fallback"
)

const fetchUsage = `Usage: toolgate fetch [--main] [--allow HOST]... [--max-bytes N] [--timeout D] URL

Fetch URL and print it converted: HTML as Markdown, text, Markdown and JSON
as they are, PDF as its text.

  --main         keep only the page's main content (drop navigation,
                 headers, footers); also TOOLGATE_FETCH_MAIN=1
  --allow HOST   fetch HOST (a name, an IP address or a CIDR range) even
                 though it is loopback or private; repeatable; also
                 TOOLGATE_FETCH_ALLOW=HOST,HOST
  --max-bytes N  body limit in bytes (default 10 MiB)
  --timeout D    total time limit, e.g. 10s (default 30s)

Exit codes: 0 success, 1 the fetch failed, 2 usage error.
`

// hostList is a repeatable --allow flag; commas separate entries too.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*h = append(*h, s)
		}
	}
	return nil
}

// runFetch is "toolgate fetch URL": it prints the converted page.
func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts fallback.Options
	var allow hostList
	var help bool
	fs := flag.NewFlagSet("toolgate fetch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&opts.MainContent, "main", envBool("TOOLGATE_FETCH_MAIN"), "main content only")
	fs.Var(&allow, "allow", "host or range to allow")
	fs.Int64Var(&opts.MaxBytes, "max-bytes", 0, "body limit in bytes")
	fs.DurationVar(&opts.Timeout, "timeout", 0, "total time limit")
	fs.BoolVar(&help, "help", false, "show help")
	fs.BoolVar(&help, "h", false, "show help")
	_ = allow.Set(os.Getenv("TOOLGATE_FETCH_ALLOW"))
	positional, err := parseInterspersed(fs, args)
	if help {
		io.WriteString(stdout, fetchUsage)
		return exitOK
	}
	if err == nil && len(positional) != 1 {
		err = fmt.Errorf("fetch wants one URL, got %d arguments", len(positional))
	}
	if err != nil {
		return fetchUsageError(stderr, err.Error())
	}
	opts.AllowHosts = allow
	f, err := fallback.New(opts)
	if err != nil {
		return fetchUsageError(stderr, err.Error())
	}
	defer f.CloseIdleConnections()
	page, err := f.Fetch(ctx, positional[0])
	if err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return exitError
	}
	text := page.Text
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		fmt.Fprintf(stderr, "toolgate: %v\n", err)
		return exitError
	}
	if page.Truncated {
		fmt.Fprintf(stderr, "toolgate: the body of %s was cut at the size limit\n", page.URL)
	}
	return exitOK
}

func fetchUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "toolgate fetch: %s\nRun 'toolgate fetch --help' for usage.\n", msg)
	return exitUsage
}

// envBool reports whether the variable is set to a true value.
func envBool(name string) bool {
	v, err := strconv.ParseBool(os.Getenv(name))
	return err == nil && v
}
