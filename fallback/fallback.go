// Package fallback fetches a web page and converts it to text that an agent
// can read: HTML becomes Markdown (optionally only the page's main content),
// plain text, Markdown and JSON pass through, other charsets are decoded
// to UTF-8 and PDF becomes its text.
//
// It is toolgate's fetch fallback for scrape tools that fail, and is usable
// on its own. A Fetcher fetches only http and https URLs, and by default
// refuses to connect to loopback, private, link-local, multicast,
// unspecified and cloud metadata addresses. The rule is applied to the
// addresses a host name resolves to, at the moment of dialing, so neither
// DNS names nor redirects get around it; Options.AllowHosts makes
// exceptions.
package fallback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/toolgate/toolgate/internal/version"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxBytes     = 10 << 20
	DefaultMaxRedirects = 5
	DefaultTimeout      = 30 * time.Second

	maxConnectTimeout = 10 * time.Second
)

// Options configure a Fetcher. Zero values mean the defaults in brackets.
type Options struct {
	// MaxBytes limits the body, after any content decoding [10 MiB]. A
	// longer body is cut at the limit and Page.Truncated is set.
	MaxBytes int64
	// MainContent extracts the main content of an HTML page (readability)
	// before converting it, dropping navigation, headers and footers.
	MainContent bool
	// AllowHosts lists hosts ("127.0.0.1", "intranet.example", "[::1]") and
	// CIDR ranges ("10.0.0.0/8") that may be fetched even though their
	// addresses are private. A host name entry allows whatever that name
	// resolves to.
	AllowHosts []string
	// UserAgent is sent with every request ["toolgate/<version> (+fetch fallback)"].
	UserAgent string
	// MaxRedirects is how many redirects are followed [5]; a negative
	// value follows none.
	MaxRedirects int
	// Timeout bounds the whole fetch, including reading the body; the
	// caller's context bounds it too [30s]. Connecting is bounded by
	// min(10s, Timeout).
	Timeout time.Duration
	// Check, if set, is asked about every URL before it is requested: the
	// first and every redirect target. A non-nil error refuses it (the
	// Manager uses it to apply policy rules); the Error then wraps it.
	Check func(ctx context.Context, u *url.URL) error
}

// A Fetcher fetches and converts pages. It is safe for concurrent use and
// holds one http.Client, whose idle connections it reuses.
type Fetcher struct {
	opts   Options // defaults applied
	allow  allowList
	client *http.Client
}

// New returns a Fetcher for opts. It fails on a malformed AllowHosts entry,
// naming it, and on negative limits.
func New(opts Options) (*Fetcher, error) {
	switch {
	case opts.MaxBytes < 0:
		return nil, fmt.Errorf("fallback: MaxBytes %d is negative", opts.MaxBytes)
	case opts.Timeout < 0:
		return nil, fmt.Errorf("fallback: Timeout %v is negative", opts.Timeout)
	}
	allow, err := parseAllowList(opts.AllowHosts)
	if err != nil {
		return nil, fmt.Errorf("fallback: %w", err)
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxRedirects == 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "toolgate/" + version.Version + " (+fetch fallback)"
	}
	f := &Fetcher{opts: opts, allow: allow}
	f.client = &http.Client{Transport: f.newTransport(), CheckRedirect: f.checkRedirect}
	return f, nil
}

// CloseIdleConnections closes the connections that the Fetcher keeps
// open for reuse. The Fetcher stays usable.
func (f *Fetcher) CloseIdleConnections() { f.client.CloseIdleConnections() }

func (f *Fetcher) newTransport() *http.Transport {
	connect := min(maxConnectTimeout, f.opts.Timeout)
	d := &guardedDialer{
		dialer:   &net.Dialer{Timeout: connect, KeepAlive: 30 * time.Second},
		resolver: net.DefaultResolver,
		allow:    f.allow,
	}
	return &http.Transport{
		Proxy:                  nil, // a proxy would make the dial-time address check meaningless
		DialContext:            d.DialContext,
		ForceAttemptHTTP2:      true,
		TLSHandshakeTimeout:    connect,
		MaxIdleConns:           16,
		IdleConnTimeout:        90 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 1 << 20,
		DisableCompression:     true, // Fetch asks for gzip and br and decodes them itself
	}
}

// Page is a fetched and converted page.
type Page struct {
	URL         string // final URL after redirects
	ContentType string // media type, e.g. "text/html"
	Title       string // the HTML title or PDF title, or a Markdown page's first heading; may be empty
	Text        string // Markdown for HTML; the text for text/*, JSON and PDF
	Truncated   bool   // the body was cut at Options.MaxBytes
}

// Error is every Fetch failure: Reason says what happened in words a person
// can act on; Status is the HTTP status when there was one.
type Error struct {
	URL    string // the URL passed to Fetch
	Status int    // the HTTP status of the final response, or 0
	Reason string // e.g. "the server answered 404 Not Found"
	Err    error  // the underlying error, if any
}

// Error returns "fetch URL: Reason".
func (e *Error) Error() string { return "fetch " + e.URL + ": " + e.Reason }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Errors that an Error may wrap, for errors.Is, besides ErrBlockedAddress,
// the error returned by Options.Check, and context.DeadlineExceeded or
// context.Canceled.
var (
	ErrBadURL            = errors.New("bad URL")
	ErrTooManyRedirects  = errors.New("too many redirects")
	ErrUnsupportedType   = errors.New("unsupported content type")
	ErrHTTPStatus        = errors.New("HTTP error status")
	errUnsupportedScheme = fmt.Errorf("%w: only http and https URLs can be fetched", ErrBadURL)
)

// checkRedirect is the client's CheckRedirect: it counts redirects and
// asks Options.Check about every target. (The address rules apply when the
// target is dialed.)
func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.opts.MaxRedirects {
		return &redirectError{target: req.URL.String(), err: fmt.Errorf("%w: more than %d", ErrTooManyRedirects, max(f.opts.MaxRedirects, 0))}
	}
	if err := validateURL(req.URL); err != nil {
		return &redirectError{target: req.URL.String(), err: err}
	}
	if err := f.check(req.Context(), req.URL); err != nil {
		return &redirectError{target: req.URL.String(), err: err}
	}
	return nil
}

// redirectError is a refused redirect.
type redirectError struct {
	target string
	err    error
}

func (e *redirectError) Error() string {
	if errors.Is(e.err, ErrTooManyRedirects) {
		return fmt.Sprintf("stopped at a redirect to %s: %v", e.target, e.err)
	}
	return fmt.Sprintf("refused the redirect to %s: %v", e.target, e.err)
}

func (e *redirectError) Unwrap() error { return e.err }

// check asks Options.Check about u.
func (f *Fetcher) check(ctx context.Context, u *url.URL) error {
	if f.opts.Check == nil {
		return nil
	}
	if err := f.opts.Check(ctx, u); err != nil {
		return fmt.Errorf("refused by policy: %w", err)
	}
	return nil
}

// validateURL accepts absolute http and https URLs with a host.
func validateURL(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%w, not %q", errUnsupportedScheme, u.Scheme+":")
	case u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("%w: no host", ErrBadURL)
	}
	return nil
}
