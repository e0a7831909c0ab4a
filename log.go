package toolgate

import (
	"context"
	"log/slog"
	"maps"
	"slices"
)

// Level is the severity of a step-log entry.
type Level string

// The step-log levels, as in the original's task log.
const (
	LevelDebug   Level = "debug"
	LevelInfo    Level = "info"
	LevelWarning Level = "warning"
	LevelError   Level = "error"
)

// StepLogger receives toolgate's step log: start-up, per-server discovery,
// call start and end, reconnects. It is the original's task_log.log_step
// hook. Implementations must be safe for concurrent use. Values of a
// server's env and headers never reach it.
type StepLogger interface {
	LogStep(level Level, step, message string, meta map[string]any)
}

// StepLoggerFunc adapts a function to [StepLogger].
type StepLoggerFunc func(level Level, step, message string, meta map[string]any)

// LogStep calls f.
func (f StepLoggerFunc) LogStep(level Level, step, message string, meta map[string]any) {
	f(level, step, message, meta)
}

// SlogLogger returns a StepLogger that writes each step to l, with the step
// name under "step" and the metadata as attributes.
func SlogLogger(l *slog.Logger) StepLogger {
	return slogStepLogger{l}
}

type slogStepLogger struct{ l *slog.Logger }

func (s slogStepLogger) LogStep(level Level, step, message string, meta map[string]any) {
	var lv slog.Level
	switch level {
	case LevelDebug:
		lv = slog.LevelDebug
	case LevelWarning:
		lv = slog.LevelWarn
	case LevelError:
		lv = slog.LevelError
	default:
		lv = slog.LevelInfo
	}
	ctx := context.Background()
	if !s.l.Enabled(ctx, lv) {
		return
	}
	attrs := make([]slog.Attr, 0, len(meta)+1)
	attrs = append(attrs, slog.String("step", step))
	for _, k := range slices.Sorted(maps.Keys(meta)) {
		attrs = append(attrs, slog.Any(k, meta[k]))
	}
	s.l.LogAttrs(ctx, lv, message, attrs...)
}

// nopLogger discards the step log.
type nopLogger struct{}

func (nopLogger) LogStep(Level, string, string, map[string]any) {}
