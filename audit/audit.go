// Package audit writes an append-only JSON Lines record of every tool call:
// who asked, what was decided and by which rule, how it ended.
//
// Durability: each record is written with a single write(2) to a file
// opened with O_APPEND before the call returns, so it survives a crash of
// the process (the kernel holds it) and concurrent records never
// interleave. Surviving a crash of the machine needs an fsync per record,
// which costs milliseconds; set Options.Sync to pay it.
package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// Record is one call in the audit log.
type Record struct {
	Time       time.Time      `json:"time"`
	Agent      string         `json:"agent,omitempty"`
	Role       string         `json:"role,omitempty"`
	Server     string         `json:"server"`
	Tool       string         `json:"tool"`
	Decision   string         `json:"decision"`         // "allow", "deny", or "none" when refused before deciding
	Rule       string         `json:"rule,omitempty"`   // the rule that decided
	Logged     []string       `json:"logged,omitempty"` // log rules that matched
	ErrorCode  string         `json:"error_code,omitempty"`
	DurationMS float64        `json:"duration_ms"`
	ResultSize int            `json:"result_size"` // bytes of result text
	Arguments  map[string]any `json:"arguments,omitempty"`
}

// Options tune a Log.
type Options struct {
	// MaxBytes rotates the file when a record would take it past this size:
	// path becomes path.1, path.1 becomes path.2, and so on. Zero means 100 MiB.
	MaxBytes int64
	// Backups is how many rotated files to keep. Zero means 3.
	Backups int
	// Sync calls fsync after every record.
	Sync bool
}

// Log is an open audit log. It is safe for concurrent use.
type Log struct {
	path string
	opts Options

	mu   sync.Mutex
	f    *os.File
	size int64
}

// Open opens (creating if needed) the audit log at path for appending.
func Open(path string, opts Options) (*Log, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 100 << 20
	}
	if opts.Backups <= 0 {
		opts.Backups = 3
	}
	l := &Log{path: path, opts: opts}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Log) open() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit log: %w", err)
	}
	l.f, l.size = f, st.Size()
	return nil
}

// Write appends one record, redacting secret-looking arguments first.
func (l *Log) Write(r Record) error {
	r.Arguments = Redact(r.Arguments)
	line, err := json.Marshal(r)
	if err != nil {
		// Arguments a server could take are JSON; keep the record anyway.
		r.Arguments = map[string]any{"unencodable": err.Error()}
		if line, err = json.Marshal(r); err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
	}
	line = append(line, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("audit log: closed")
	}
	if l.size > 0 && l.size+int64(len(line)) > l.opts.MaxBytes {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(line) // one write(2): O_APPEND keeps records whole
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if l.opts.Sync {
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("audit log: %w", err)
		}
	}
	return nil
}

// rotate shifts path.N-1 to path.N ... path to path.1 and opens a new file.
func (l *Log) rotate() error {
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	l.f = nil
	for i := l.opts.Backups; i > 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", l.path, i-1), fmt.Sprintf("%s.%d", l.path, i))
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("audit log: rotate: %w", err)
	}
	return l.open()
}

// Close closes the file. Writes after Close fail.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Redacted replaces the value of a secret-looking key.
const Redacted = "[REDACTED]"

// Redact returns a copy of args in which the value of every key, at any
// depth, that looks secret — containing "key", "token", "secret" or
// "password", or equal to "authorization", in any case — is replaced by
// [Redacted].
func Redact(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if secretKey(k) {
			out[k] = Redacted
			continue
		}
		out[k] = redactValue(v, 0)
	}
	return out
}

func redactValue(v any, depth int) any {
	if depth > 32 {
		return v
	}
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			if secretKey(k) {
				out[k] = Redacted
			} else {
				out[k] = redactValue(e, depth+1)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(e, depth+1)
		}
		return out
	}
	return v
}

func secretKey(k string) bool {
	k = strings.ToLower(k)
	return k == "authorization" || strings.Contains(k, "key") || strings.Contains(k, "token") ||
		strings.Contains(k, "secret") || strings.Contains(k, "password")
}
