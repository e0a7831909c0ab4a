package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestConcurrentWritersNeverInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 64, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				// Big enough records that a torn write would show.
				args := map[string]any{"text": strings.Repeat(fmt.Sprint(w), 2000), "i": i}
				if err := l.Write(Record{Server: "s", Tool: "t", Decision: "allow", Arguments: args}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	l.Close()
	if n := countValidLines(t, path); n != writers*each {
		t.Errorf("%d valid lines, want %d", n, writers*each)
	}
}

func countValidLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d is not a record: %v", n+1, err)
		}
		n++
	}
	return n
}

func TestRedact(t *testing.T) {
	got := Redact(map[string]any{
		"q":             "weather",
		"api_key":       "k",
		"Authorization": "Bearer x",
		"nested":        map[string]any{"accessToken": "t", "list": []any{map[string]any{"db_password": "p", "ok": 1}}},
		"clientSecret":  "s",
	})
	b, _ := json.Marshal(got)
	want := `{"Authorization":"[REDACTED]","api_key":"[REDACTED]","clientSecret":"[REDACTED]","nested":{"accessToken":"[REDACTED]","list":[{"db_password":"[REDACTED]","ok":1}]},"q":"weather"}`
	if string(b) != want {
		t.Errorf("Redact = %s\nwant     %s", b, want)
	}
}

func TestRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := Open(path, Options{MaxBytes: 1000, Backups: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		if err := l.Write(Record{Server: "s", Tool: fmt.Sprint(i), Decision: "allow"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	total := 0
	for _, p := range []string{path, path + ".1", path + ".2"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if st.Size() > 1000 {
			t.Errorf("%s is %d bytes, over the limit", p, st.Size())
		}
		total += countValidLines(t, p)
	}
	if _, err := os.Stat(path + ".3"); err == nil {
		t.Error("kept more backups than asked")
	}
	if total == 0 || total >= 40 {
		t.Errorf("%d records kept across 3 files", total)
	}
	if err := l.Write(Record{}); err == nil {
		t.Error("Write after Close succeeded")
	}
}
