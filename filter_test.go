package toolgate

import "testing"

func TestFilter(t *testing.T) {
	f, err := newFilter([]string{"search:sogou_search", "*:delete_*"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		server, tool string
		denied       bool
	}{
		{"search", "sogou_search", true},
		{"search", "google_search", false},
		{"files", "delete_all", true},
		{"other", "sogou_search", false},
	} {
		if got := f.check(tc.server, tc.tool) != ""; got != tc.denied {
			t.Errorf("check(%s, %s) denied = %v, want %v", tc.server, tc.tool, got, tc.denied)
		}
	}
	allow, _ := newFilter([]string{"web:scrape_private"}, []string{"web:*", "calc:add"})
	for _, tc := range []struct {
		server, tool string
		denied       bool
	}{
		{"web", "scrape", false},
		{"web", "scrape_private", true}, // deny wins over allow
		{"calc", "add", false},
		{"calc", "sub", true},
	} {
		if got := allow.check(tc.server, tc.tool) != ""; got != tc.denied {
			t.Errorf("allow check(%s, %s) denied = %v, want %v", tc.server, tc.tool, got, tc.denied)
		}
	}
	if _, err := newFilter([]string{":x"}, nil); err == nil {
		t.Error("pattern with empty server accepted")
	}
}
