package fallback

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

const acceptHeader = "text/html, application/xhtml+xml, text/markdown;q=0.9, text/plain;q=0.9, " +
	"application/json;q=0.9, application/pdf;q=0.8, */*;q=0.5"

// Fetch fetches rawURL, following redirects, and converts the body by its
// content type. Every failure is an *Error.
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (*Page, error) {
	start := time.Now()
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, &Error{URL: rawURL, Reason: "not a valid URL: " + unwrapURLError(err).Error(), Err: fmt.Errorf("%w: %w", ErrBadURL, err)}
	}
	if err := validateURL(u); err != nil {
		return nil, &Error{URL: rawURL, Reason: err.Error(), Err: err}
	}
	ctx, cancel := context.WithTimeout(ctx, f.opts.Timeout)
	defer cancel()
	if err := f.check(ctx, u); err != nil {
		return nil, &Error{URL: rawURL, Reason: err.Error(), Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, &Error{URL: rawURL, Reason: "cannot make a request: " + err.Error(), Err: err}
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", acceptHeader)
	req.Header.Set("Accept-Encoding", "gzip, br")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.failure(ctx, rawURL, start, "request failed", err)
	}
	defer resp.Body.Close()
	page, err := f.read(ctx, resp)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.URL = rawURL
			return nil, e
		}
		return nil, f.failure(ctx, rawURL, start, "reading the response failed", err)
	}
	return page, nil
}

// read checks the status and content type of resp, reads its body within
// the limit and converts it.
func (f *Fetcher) read(ctx context.Context, resp *http.Response) (*Page, error) {
	final := resp.Request.URL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		reason := "the server answered " + statusText(resp)
		if resp.Request.Response != nil { // redirected
			reason += " for " + final.String()
		}
		return nil, &Error{Status: resp.StatusCode, Reason: reason, Err: fmt.Errorf("%w %d", ErrHTTPStatus, resp.StatusCode)}
	}
	header := resp.Header.Get("Content-Type")
	mediaType := parseMediaType(header)
	k := classify(mediaType)
	if k == kindUnsupported {
		// Refuse before reading a byte of the body.
		return nil, unsupportedType(resp.StatusCode, mediaType)
	}
	body, truncated, err := f.readBody(resp)
	if err != nil {
		return nil, err
	}
	if k == kindSniff {
		header = http.DetectContentType(body)
		mediaType = parseMediaType(header)
		if k = classify(mediaType); k == kindUnsupported || k == kindSniff {
			return nil, unsupportedType(resp.StatusCode, mediaType)
		}
	}
	page, err := f.convert(ctx, final, k, mediaType, header, body, truncated)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			e.Status = resp.StatusCode
			return nil, e
		}
		return nil, err
	}
	page.URL = final.String()
	page.ContentType = mediaType
	page.Truncated = truncated
	return page, nil
}

func unsupportedType(status int, mediaType string) error {
	return &Error{Status: status, Reason: "unsupported content type " + mediaType, Err: fmt.Errorf("%w %s", ErrUnsupportedType, mediaType)}
}

// statusText is "404 Not Found", or the status line's text when the code
// has no standard name.
func statusText(resp *http.Response) string {
	if t := http.StatusText(resp.StatusCode); t != "" {
		return fmt.Sprintf("%d %s", resp.StatusCode, t)
	}
	if resp.Status != "" {
		return resp.Status
	}
	return fmt.Sprint(resp.StatusCode)
}

// parseMediaType returns the lower-case media type of a Content-Type
// header, or "" when there is none or it is unreadable.
func parseMediaType(header string) string {
	if header == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(header)
	if err != nil {
		// Take what stands before any parameters, if it looks like a type.
		mt, _, _ = strings.Cut(header, ";")
		mt = strings.ToLower(strings.TrimSpace(mt))
		if !strings.Contains(mt, "/") {
			return ""
		}
	}
	return mt
}

// readBody reads the decoded body, at most Options.MaxBytes of it. It
// reads one byte more than the limit to know whether the body was cut.
func (f *Fetcher) readBody(resp *http.Response) (body []byte, truncated bool, err error) {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	r, err := decodeContent(resp.Body, enc)
	if err != nil {
		return nil, false, err
	}
	limit := f.opts.MaxBytes
	var buf bytes.Buffer
	if n := resp.ContentLength; n > 0 && (enc == "" || enc == "identity") {
		buf.Grow(int(min(n, limit) + 1))
	}
	if _, err := buf.ReadFrom(io.LimitReader(r, limit+1)); err != nil {
		return nil, false, err
	}
	body = buf.Bytes()
	if int64(len(body)) > limit {
		return body[:limit], true, nil
	}
	return body, false, nil
}

// decodeContent undoes the Content-Encoding enc.
func decodeContent(body io.Reader, enc string) (io.Reader, error) {
	switch enc {
	case "", "identity":
		return body, nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("bad gzip body: %w", err)
		}
		return zr, nil
	case "br":
		return brotli.NewReader(body), nil
	case "deflate":
		zr, err := zlib.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("bad deflate body: %w", err)
		}
		return zr, nil
	}
	return nil, &Error{Reason: fmt.Sprintf("unsupported content encoding %q", enc)}
}

// failure turns an error from the client or from reading the body into an
// *Error, telling a timeout or cancellation apart from other failures.
func (f *Fetcher) failure(ctx context.Context, rawURL string, start time.Time, what string, err error) *Error {
	var blocked *blockedError
	var redirect *redirectError
	switch {
	case errors.As(err, &blocked):
		return &Error{URL: rawURL, Reason: blocked.Error(), Err: blocked}
	case errors.As(err, &redirect):
		return &Error{URL: rawURL, Reason: redirect.Error(), Err: redirect.err}
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		d := time.Since(start).Round(time.Millisecond)
		return &Error{URL: rawURL, Reason: fmt.Sprintf("timed out after %v", d), Err: context.DeadlineExceeded}
	case errors.Is(ctx.Err(), context.Canceled):
		return &Error{URL: rawURL, Reason: "canceled", Err: context.Canceled}
	}
	return &Error{URL: rawURL, Reason: what + ": " + unwrapURLError(err).Error(), Err: err}
}

// unwrapURLError drops the *url.Error wrapper, whose text repeats the
// method and URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
