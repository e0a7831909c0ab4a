package fallback_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/toolgate/toolgate/fallback"
)

func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<html><head><title>Release notes</title></head><body>
<h1>Release notes</h1><p>toolgate now <strong>fetches</strong> pages itself when a scrape tool fails.</p>
<ul><li>HTML becomes Markdown</li><li>private addresses are refused</li></ul></body></html>`)
	}))
	defer srv.Close()

	// httptest listens on 127.0.0.1, a loopback address that is refused
	// unless allowed.
	f, err := fallback.New(fallback.Options{AllowHosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	page, err := f.Fetch(context.Background(), srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(page.ContentType, "|", page.Title)
	fmt.Println(page.Text)

	// Without the allow list, the same URL is refused before any request.
	strict, _ := fallback.New(fallback.Options{})
	_, err = strict.Fetch(context.Background(), srv.URL)
	fmt.Println(errors.Is(err, fallback.ErrBlockedAddress))
	// Output:
	// text/html | Release notes
	// # Release notes
	//
	// toolgate now **fetches** pages itself when a scrape tool fails.
	//
	// - HTML becomes Markdown
	// - private addresses are refused
	// true
}
