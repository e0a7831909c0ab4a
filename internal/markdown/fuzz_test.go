package markdown

import "testing"

// FuzzRender checks that Render never panics, writes valid UTF-8, and
// writes Markdown that goldmark reads back as the same visible text. Its
// seed corpus is in testdata/fuzz/FuzzRender; the golden inputs are added
// to it.
func FuzzRender(f *testing.F) {
	for _, tc := range goldens {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkRoundTrip(t, src)
	})
}
