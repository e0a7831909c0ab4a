package demo

import (
	"context"
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // so that time zones work on machines without tzdata

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func registerClock(srv *mcp.Server) {
	addTool(srv, "now", "Current time",
		"Returns the current time in an IANA time zone (default UTC) as RFC 3339, with the weekday and Unix time.",
		now)
	addTool(srv, "convert_time", "Convert time",
		"Converts an RFC 3339 time (e.g. 2025-03-01T09:30:00Z or 2025-03-01T09:30:00+01:00) to another IANA time zone.",
		convertTime)
	addTool(srv, "date_diff", "Date difference",
		"Computes the difference from one date or time to another. Each may be a date (YYYY-MM-DD, taken as midnight UTC) "+
			"or an RFC 3339 time. Returns the signed number of days and a calendar duration such as 1 year, 2 months, 3 days.",
		dateDiff)
}

type nowInput struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"an IANA time zone such as Europe/Paris or America/New_York; default UTC"`
}

// timeOutput describes an instant in a time zone.
type timeOutput struct {
	Time     string `json:"time" jsonschema:"the time in RFC 3339 format"`
	Timezone string `json:"timezone" jsonschema:"the IANA time zone"`
	Weekday  string `json:"weekday" jsonschema:"the day of the week in that time zone"`
	Unix     int64  `json:"unix" jsonschema:"seconds since 1970-01-01T00:00:00Z"`
}

// loadZone loads an IANA time zone; the empty name means UTC.
func loadZone(name string) (*time.Location, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q (use an IANA name such as UTC, Europe/London or Asia/Tokyo)", name)
	}
	return loc, nil
}

// describeTime returns the tool result describing t.
func describeTime(t time.Time, loc *time.Location) (*mcp.CallToolResult, timeOutput) {
	t = t.In(loc)
	out := timeOutput{
		Time:     t.Format(time.RFC3339),
		Timezone: loc.String(),
		Weekday:  t.Weekday().String(),
		Unix:     t.Unix(),
	}
	return textResult(fmt.Sprintf("%s (%s, %s)", out.Time, out.Weekday, out.Timezone)), out
}

func now(_ context.Context, _ *mcp.CallToolRequest, in nowInput) (*mcp.CallToolResult, timeOutput, error) {
	loc, err := loadZone(in.Timezone)
	if err != nil {
		return nil, timeOutput{}, fmt.Errorf("now: %w", err)
	}
	res, out := describeTime(time.Now(), loc)
	return res, out, nil
}

type convertTimeInput struct {
	Time       string `json:"time" jsonschema:"an RFC 3339 time such as 2025-03-01T09:30:00Z"`
	ToTimezone string `json:"to_timezone" jsonschema:"the IANA time zone to convert to, such as Asia/Tokyo"`
}

func convertTime(_ context.Context, _ *mcp.CallToolRequest, in convertTimeInput) (*mcp.CallToolResult, timeOutput, error) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(in.Time))
	if err != nil {
		return nil, timeOutput{}, fmt.Errorf("convert_time: invalid RFC 3339 time %q: %w", in.Time, err)
	}
	loc, err := loadZone(in.ToTimezone)
	if err != nil {
		return nil, timeOutput{}, fmt.Errorf("convert_time: %w", err)
	}
	res, out := describeTime(t, loc)
	return res, out, nil
}

type dateDiffInput struct {
	From string `json:"from" jsonschema:"the start, as YYYY-MM-DD or an RFC 3339 time"`
	To   string `json:"to" jsonschema:"the end, as YYYY-MM-DD or an RFC 3339 time"`
}

type dateDiffOutput struct {
	Days     float64 `json:"days" jsonschema:"the signed number of days from from to to, fractional for times; negative if to is earlier"`
	Duration string  `json:"duration" jsonschema:"the absolute calendar difference, e.g. 1 year, 2 months, 3 days, 4 hours"`
}

// parseDateOrTime parses a YYYY-MM-DD date (as midnight UTC) or an RFC 3339 time.
func parseDateOrTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("invalid date %q: want YYYY-MM-DD or an RFC 3339 time", s)
	}
	return t, nil
}

func dateDiff(_ context.Context, _ *mcp.CallToolRequest, in dateDiffInput) (*mcp.CallToolResult, dateDiffOutput, error) {
	from, err := parseDateOrTime(in.From)
	if err != nil {
		return nil, dateDiffOutput{}, fmt.Errorf("date_diff: from: %w", err)
	}
	to, err := parseDateOrTime(in.To)
	if err != nil {
		return nil, dateDiffOutput{}, fmt.Errorf("date_diff: to: %w", err)
	}
	out := dateDiffOutput{
		Days:     to.Sub(from).Hours() / 24,
		Duration: humanDuration(from, to),
	}
	direction := "later"
	if to.Before(from) {
		direction = "earlier"
	}
	text := fmt.Sprintf("%s days (%s %s)", formatFloat(out.Days), out.Duration, direction)
	if from.Equal(to) {
		text = "0 days (the same instant)"
	}
	return textResult(text), out, nil
}

// humanDuration returns the calendar difference between a and b in years,
// months, days, hours, minutes and seconds, omitting zero components.
func humanDuration(a, b time.Time) string {
	a, b = a.UTC(), b.UTC()
	if b.Before(a) {
		a, b = b, a
	}
	years := b.Year() - a.Year()
	if a.AddDate(years, 0, 0).After(b) {
		years--
	}
	a = a.AddDate(years, 0, 0)
	months := 0
	for !a.AddDate(0, months+1, 0).After(b) {
		months++
	}
	a = a.AddDate(0, months, 0)
	days := 0
	for !a.AddDate(0, 0, days+1).After(b) {
		days++
	}
	rest := b.Sub(a.AddDate(0, 0, days))
	parts := []struct {
		n    int
		unit string
	}{
		{years, "year"}, {months, "month"}, {days, "day"},
		{int(rest / time.Hour), "hour"}, {int(rest % time.Hour / time.Minute), "minute"},
		{int(rest % time.Minute / time.Second), "second"},
	}
	var out []string
	for _, p := range parts {
		switch {
		case p.n == 1:
			out = append(out, "1 "+p.unit)
		case p.n > 1:
			out = append(out, fmt.Sprintf("%d %ss", p.n, p.unit))
		}
	}
	if len(out) == 0 {
		return "0 seconds"
	}
	return strings.Join(out, ", ")
}
