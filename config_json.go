package toolgate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"
)

// rawObject is a JSON object whose keys keep their order.
type rawObject struct {
	keys   []string
	values map[string]json.RawMessage
}

// decodeConfig turns JSON into a Config, naming the field of every error and
// the line and column of a syntax error.
func decodeConfig(data []byte) (Config, error) {
	var cfg Config
	// A full parse first gives syntax errors an offset in the whole document.
	var whole any
	err := json.Unmarshal(data, &whole)
	var top *rawObject
	if err == nil {
		top, err = parseObject(data)
	}
	if err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			line, col := lineCol(data, syn.Offset)
			return cfg, fmt.Errorf("invalid JSON at line %d, column %d: %v", line, col, syn)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			line, col := lineCol(data, int64(len(data)))
			return cfg, fmt.Errorf("invalid JSON at line %d, column %d: unexpected end of input", line, col)
		}
		return cfg, fmt.Errorf("invalid JSON: %v", err)
	}
	if err := checkKeys("", top, "mcpServers", "toolgate"); err != nil {
		return cfg, err
	}
	var errs []error
	if raw, ok := top.values["mcpServers"]; ok {
		servers, err := parseObject(raw)
		if err != nil {
			return cfg, fmt.Errorf("mcpServers: want an object of servers: %v", err)
		}
		for _, name := range servers.keys {
			s, err := decodeServer(name, servers.values[name])
			errs = append(errs, err)
			cfg.Servers = append(cfg.Servers, s)
		}
	}
	if raw, ok := top.values["toolgate"]; ok {
		errs = append(errs, decodeSettings(raw, &cfg))
	}
	return cfg, errors.Join(errs...)
}

func decodeServer(name string, raw json.RawMessage) (ServerConfig, error) {
	s := ServerConfig{Name: name}
	var typ, transport string
	var stateful *bool // nil when the key is absent
	fallbackOn := true
	err := decodeObject("mcpServers."+name, raw, map[string]any{
		"command": &s.Command, "args": &s.Args, "env": &s.Env, "cwd": &s.Cwd,
		"url": &s.URL, "headers": &s.Headers, "type": &typ, "transport": &transport,
		"timeout": &s.Timeout, "connectTimeout": &s.ConnectTimeout, "session": &s.Session,
		"stateful": &stateful, "maxResultChars": &s.MaxResultChars, "fallback": &fallbackOn,
	})
	for _, t := range []string{typ, transport} { // "transport" wins over "type"
		if t != "" {
			s.Transport = normalizeTransport(t)
		}
	}
	// A playwright server is stateful unless it says otherwise, as in the
	// original, whose only kept session was playwright's.
	s.Stateful = stateful != nil && *stateful || stateful == nil && name == "playwright"
	s.NoFallback = !fallbackOn
	return s, err
}

// normalizeTransport accepts the spellings other MCP clients use in their
// "type" field.
func normalizeTransport(t string) Transport {
	switch strings.ToLower(t) {
	case "http", "streamable-http", "streamablehttp", "streamable_http", "streamable":
		return TransportStreamable
	}
	return Transport(t)
}

func decodeSettings(raw json.RawMessage, cfg *Config) error {
	var policyRaw, fallbackRaw json.RawMessage
	errs := []error{decodeObject("toolgate", raw, map[string]any{
		"deny": &cfg.Deny, "allow": &cfg.Allow,
		"callTimeout": &cfg.CallTimeout, "connectTimeout": &cfg.ConnectTimeout, "scopeIdleTimeout": &cfg.ScopeIdleTimeout,
		"maxResultChars": &cfg.MaxResultChars, "auditLog": &cfg.AuditLog, "auditSync": &cfg.AuditSync,
		"policy": &policyRaw, "fallback": &fallbackRaw,
	})}
	if policyRaw != nil {
		var err error
		cfg.Policy, err = decodePolicy(policyRaw)
		errs = append(errs, err)
	}
	if fallbackRaw != nil {
		var err error
		cfg.Fallback, err = decodeFallback(fallbackRaw)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// decodeObject decodes a JSON object whose keys must all be in fields,
// each into the value its key points to, naming path.key in every error.
func decodeObject(path string, raw []byte, fields map[string]any) error {
	obj, err := parseObject(raw)
	if err != nil {
		return fmt.Errorf("%s: want an object: %v", path, err)
	}
	if err := checkKeys(path, obj, slices.Sorted(maps.Keys(fields))...); err != nil {
		return err
	}
	var errs []error
	for _, key := range obj.keys {
		errs = append(errs, decodeField(path+"."+key, obj.values[key], fields[key]))
	}
	return errors.Join(errs...)
}

// parseObject decodes a JSON object keeping the order of its keys.
func parseObject(data []byte) (*rawObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("found %s", describeToken(tok))
	}
	obj := &rawObject{values: make(map[string]json.RawMessage)}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string) // object keys are always strings
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := obj.values[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		obj.keys = append(obj.keys, key)
		obj.values[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			return nil, &json.SyntaxError{Offset: dec.InputOffset()}
		}
		return nil, err
	}
	return obj, nil
}

// checkKeys reports the first key of obj not in known, suggesting the
// closest known key.
func checkKeys(path string, obj *rawObject, known ...string) error {
	for _, k := range obj.keys {
		if slices.Contains(known, k) {
			continue
		}
		where := k
		if path != "" {
			where = path + "." + k
		}
		if s := closest(k, known); s != "" {
			return fmt.Errorf("%s: unknown key (did you mean %q?)", where, s)
		}
		sorted := append([]string(nil), known...)
		sort.Strings(sorted)
		return fmt.Errorf("%s: unknown key (known keys: %s)", where, strings.Join(sorted, ", "))
	}
	return nil
}

// closest returns the known key within edit distance 2 of k, ignoring case.
func closest(k string, known []string) string {
	best, bestDist := "", 3
	for _, c := range known {
		if d := editDistance(strings.ToLower(k), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// decodeField unmarshals raw into v, describing a type mismatch in words.
func decodeField(path string, raw json.RawMessage, v any) error {
	if d, ok := v.(*time.Duration); ok {
		return decodeDuration(path, raw, d)
	}
	err := json.Unmarshal(raw, v)
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		return fmt.Errorf("%s: want %s, got %s", path, describeType(v), jsonKind(raw))
	default:
		return fmt.Errorf("%s: %v", path, err)
	}
}

// decodeDuration accepts a Go duration string ("30s", "2m") or a number of seconds.
func decodeDuration(path string, raw json.RawMessage, d *time.Duration) error {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%s: bad duration %q (want e.g. \"30s\" or \"2m\")", path, s)
		}
		*d = v
		return nil
	}
	var secs float64
	if err := json.Unmarshal(raw, &secs); err == nil {
		*d = time.Duration(secs * float64(time.Second))
		return nil
	}
	return fmt.Errorf("%s: want a duration such as \"30s\" or a number of seconds, got %s", path, jsonKind(raw))
}

func describeType(v any) string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "an array of strings"
		}
		return "an array"
	case reflect.Map:
		return "an object of strings"
	}
	return t.String()
}

func jsonKind(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	return describeToken(v)
}

func describeToken(tok any) string {
	switch t := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	case json.Delim:
		if t == '[' {
			return "an array"
		}
		return "an object"
	}
	return fmt.Sprintf("%T", tok)
}

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
