package demo

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolgate/toolgate/internal/mcptest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// connect connects a client to the named demo server over in-memory transports.
func connect(t *testing.T, name string) *mcp.ClientSession {
	t.Helper()
	srv, err := NewServer(name)
	if err != nil {
		t.Fatal(err)
	}
	return mcptest.Connect(t, srv, nil)
}

// call calls a tool, failing the test on protocol errors, and returns the
// concatenated text content, IsError and the structured content as JSON.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (text string, isError bool, structured string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		structured = string(data)
	}
	return strings.Join(texts, "\n"), res.IsError, structured
}

// check calls a tool and checks that it succeeds with the given text (if
// want is non-empty) and structured content (if wantStructured is non-empty).
func check(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, want, wantStructured string) {
	t.Helper()
	text, isErr, structured := call(t, cs, tool, args)
	if isErr {
		t.Errorf("%s(%v): unexpected tool error %q", tool, args, text)
		return
	}
	if want != "" && text != want {
		t.Errorf("%s(%v) = %q, want %q", tool, args, text, want)
	}
	if wantStructured != "" && structured != canonicalJSON(t, wantStructured) {
		t.Errorf("%s(%v) structured = %s, want %s", tool, args, structured, wantStructured)
	}
}

// canonicalJSON re-encodes a JSON object with sorted keys, as the client
// decodes structured content into a map.
func canonicalJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// checkError calls a tool and checks that it reports a tool error containing substr.
func checkError(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, substr string) {
	t.Helper()
	text, isErr, _ := call(t, cs, tool, args)
	if !isErr || !strings.Contains(text, substr) {
		t.Errorf("%s(%v) = %q (IsError=%v), want tool error containing %q", tool, args, text, isErr, substr)
	}
}

func TestRegistry(t *testing.T) {
	if got, want := Names(), []string{"text", "calc", "clock"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	for _, name := range Names() {
		if Describe(name) == "" {
			t.Errorf("Describe(%q) is empty", name)
		}
		srv, err := NewServer(name)
		if err != nil || srv == nil {
			t.Errorf("NewServer(%q) = %v, %v", name, srv, err)
		}
	}
	if Describe("nope") != "" {
		t.Error(`Describe("nope") is not empty`)
	}
	_, err := NewServer("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "text, calc, clock") {
		t.Errorf(`NewServer("nope") error = %v`, err)
	}
}

func TestToolSchemas(t *testing.T) {
	for _, name := range Names() {
		cs := connect(t, name)
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range res.Tools {
			if tool.Description == "" {
				t.Errorf("%s/%s has no description", name, tool.Name)
			}
			data, _ := json.Marshal(tool.InputSchema)
			var schema struct {
				Properties map[string]struct {
					Description string `json:"description"`
				} `json:"properties"`
			}
			if err := json.Unmarshal(data, &schema); err != nil {
				t.Fatal(err)
			}
			for prop, s := range schema.Properties {
				if s.Description == "" {
					t.Errorf("%s/%s: input %q has no description", name, tool.Name, prop)
				}
			}
		}
	}
}

func TestText(t *testing.T) {
	cs := connect(t, "text")
	check(t, cs, "word_count", map[string]any{"text": "héllo wörld\nbye\n"}, "",
		`{"characters":18,"runes":16,"words":3,"lines":2}`)
	check(t, cs, "hash", map[string]any{"text": "abc"}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "")
	check(t, cs, "hash", map[string]any{"text": "abc", "algorithm": "md5"}, "900150983cd24fb0d6963f7d28e17f72", "")
	check(t, cs, "hash", map[string]any{"text": "abc", "algorithm": "SHA1"}, "a9993e364706816aba3e25717850c26c9cd0d89d", "")
	checkError(t, cs, "hash", map[string]any{"text": "abc", "algorithm": "crc32"}, `unknown algorithm "crc32"`)
	check(t, cs, "base64", map[string]any{"text": "hi?>"}, "aGk/Pg==", "")
	check(t, cs, "base64", map[string]any{"text": "aGk/Pg==", "decode": true}, "hi?>", "")
	check(t, cs, "base64", map[string]any{"text": "aGk_Pg", "decode": true}, "hi?>", "")
	checkError(t, cs, "base64", map[string]any{"text": "not base64!", "decode": true}, "invalid base64")
	checkError(t, cs, "base64", map[string]any{"text": "//79", "decode": true}, "not valid UTF-8")
	check(t, cs, "url_encode", map[string]any{"text": "a b&c=d/é"}, "a+b%26c%3Dd%2F%C3%A9", "")
	check(t, cs, "url_encode", map[string]any{"text": "a+b%26c", "decode": true}, "a b&c", "")
	checkError(t, cs, "url_encode", map[string]any{"text": "%zz", "decode": true}, "invalid percent-encoding")
	check(t, cs, "regex_find", map[string]any{"pattern": `(\w)(\d)`, "text": "a1 b2 c3", "limit": 2},
		`[{"match":"a1","start":0,"end":2,"groups":["a","1"]},{"match":"b2","start":3,"end":5,"groups":["b","2"]}]`, "")
	check(t, cs, "regex_find", map[string]any{"pattern": `z`, "text": "abc"}, "[]", "")
	checkError(t, cs, "regex_find", map[string]any{"pattern": `a(b`, "text": "abc"}, "invalid pattern \"a(b\"")
}

func TestCalc(t *testing.T) {
	cs := connect(t, "calc")
	check(t, cs, "evaluate", map[string]any{"expression": "(1<<64) - 1"}, "18446744073709551615",
		`{"value":"18446744073709551615","type":"untyped int"}`)
	check(t, cs, "evaluate", map[string]any{"expression": "7/2"}, "3", "")
	check(t, cs, "evaluate", map[string]any{"expression": "1.0/3 + 1"}, "4/3 ≈ 1.33333333333333333333333333333", "")
	check(t, cs, "evaluate", map[string]any{"expression": "2.5 * 4"}, "10", "")
	check(t, cs, "evaluate", map[string]any{"expression": "17 % 5 == 2"}, "true", "")
	checkError(t, cs, "evaluate", map[string]any{"expression": "2**10"}, "no ** operator")
	checkError(t, cs, "evaluate", map[string]any{"expression": "1/0"}, "division by zero")
	checkError(t, cs, "evaluate", map[string]any{"expression": "int8(200)"}, "int8")
	checkError(t, cs, "evaluate", map[string]any{"expression": "x + 1"}, "undefined")
	checkError(t, cs, "evaluate", map[string]any{"expression": "  "}, "empty expression")

	check(t, cs, "convert_units", map[string]any{"value": 1, "from": "mi", "to": "km"}, "1 mi = 1.609344 km",
		`{"value":1.609344,"unit":"km","kind":"length","source":"1 mi"}`)
	check(t, cs, "convert_units", map[string]any{"value": 100, "from": "C", "to": "f"}, "100 C = 212 F", "")
	check(t, cs, "convert_units", map[string]any{"value": 0, "from": "K", "to": "C"}, "0 K = -273.15 C", "")
	check(t, cs, "convert_units", map[string]any{"value": 1, "from": "lb", "to": "oz"}, "1 lb = 16 oz", "")
	check(t, cs, "convert_units", map[string]any{"value": 1, "from": "GiB", "to": "MB"}, "1 GiB = 1073.741824 MB", "")
	checkError(t, cs, "convert_units", map[string]any{"value": 1, "from": "kg", "to": "m"}, "cannot convert kg (mass) to m (length)")
	checkError(t, cs, "convert_units", map[string]any{"value": 1, "from": "parsec", "to": "m"}, `unknown unit "parsec"`)
	checkError(t, cs, "convert_units", map[string]any{"value": -500, "from": "F", "to": "C"}, "below absolute zero")
}

func TestClock(t *testing.T) {
	cs := connect(t, "clock")
	text, isErr, structured := call(t, cs, "now", nil)
	var out timeOutput
	if err := json.Unmarshal([]byte(structured), &out); isErr || err != nil {
		t.Fatalf("now: %q (IsError=%v, err %v)", text, isErr, err)
	}
	got, err := time.Parse(time.RFC3339, out.Time)
	if err != nil || out.Timezone != "UTC" || !strings.HasSuffix(out.Time, "Z") || time.Since(got) > time.Minute {
		t.Errorf("now = %+v (parse error %v)", out, err)
	}
	text, _, _ = call(t, cs, "now", map[string]any{"timezone": "Asia/Kolkata"})
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30 \(\w+day, Asia/Kolkata\)$`).MatchString(text) {
		t.Errorf("now(Asia/Kolkata) = %q", text)
	}
	checkError(t, cs, "now", map[string]any{"timezone": "Mars/Olympus"}, `unknown time zone "Mars/Olympus"`)

	check(t, cs, "convert_time", map[string]any{"time": "2025-03-01T09:30:00Z", "to_timezone": "America/New_York"},
		"2025-03-01T04:30:00-05:00 (Saturday, America/New_York)",
		`{"time":"2025-03-01T04:30:00-05:00","timezone":"America/New_York","weekday":"Saturday","unix":1740821400}`)
	checkError(t, cs, "convert_time", map[string]any{"time": "yesterday", "to_timezone": "UTC"}, "invalid RFC 3339")
	checkError(t, cs, "convert_time", map[string]any{"time": "2025-03-01T09:30:00Z", "to_timezone": "Nowhere"}, "unknown time zone")

	check(t, cs, "date_diff", map[string]any{"from": "2024-01-15", "to": "2025-03-18"},
		"428 days (1 year, 2 months, 3 days later)", `{"days":428,"duration":"1 year, 2 months, 3 days"}`)
	check(t, cs, "date_diff", map[string]any{"from": "2025-01-02T12:00:00Z", "to": "2025-01-01"},
		"-1.5 days (1 day, 12 hours earlier)", "")
	check(t, cs, "date_diff", map[string]any{"from": "2025-01-01", "to": "2025-01-01T00:00:00Z"}, "0 days (the same instant)", "")
	checkError(t, cs, "date_diff", map[string]any{"from": "2025-13-01", "to": "2025-01-01"}, `from: invalid date "2025-13-01"`)
}
